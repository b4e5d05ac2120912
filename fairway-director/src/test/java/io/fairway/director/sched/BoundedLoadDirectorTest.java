package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.varnish.ShardDirector;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BoundedLoadDirectorTest {

  private static ShardDirector shard(int n) {
    ShardDirector s = new ShardDirector("s");
    for (int i = 0; i < n; i++) s.add(Member.of(Backend.named("b" + i)));
    return s;
  }

  @Test
  void aHotKeySpillsToItsAlternativesOnceItsServerReachesTheBound() {
    ShardDirector s = shard(4);
    BoundedLoadDirector d = new BoundedLoadDirector(s, 150);
    Request hot = Request.ofKey(123456789L);
    Backend home = s.pick(hot);
    List<BoundedLoadDirector.Lease> leases = new ArrayList<>();
    for (int i = 0; i < 40; i++) leases.add(d.open(hot));
    // 40 connections over 4 servers: mean 10, bound ceil(1.5 × mean) = 15.
    assertThat(d.load(home)).isBetween(14, 15);
    for (Member m : s.members()) assertThat(d.load(m.backend())).isLessThanOrEqualTo(15);
    assertThat(leases.get(0).backend()).as("the first connections stay home").isSameAs(home);
    leases.forEach(BoundedLoadDirector.Lease::close);
    assertThat(d.load(home)).isZero();
    assertThat(d.pick(hot)).isSameAs(home);
  }

  @Test
  void uniformKeysStayWhereTheShardPutsThem() {
    ShardDirector s = shard(10);
    BoundedLoadDirector d = new BoundedLoadDirector(s, 200);
    int same = 0;
    for (long k = 0; k < 1000; k++) {
      Request r = Request.ofKey(k * 2654435761L & 0xffffffffL);
      if (d.pick(r) == s.pick(r)) same++;
    }
    assertThat(same).isEqualTo(1000);
    assertThatThrownBy(() -> new BoundedLoadDirector(s, 90)).hasMessageContaining("at least 100");
  }
}
