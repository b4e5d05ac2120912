package io.fairway.director;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class SnapshotTest {

  /** Varnish's vdir_pick_be, literally: the reference the binary search must agree with. */
  static int linearPick(List<Member> ms, double w) {
    double total = 0;
    for (Member m : ms) {
      if (m.healthy()) {
        total += m.weight();
      }
    }
    if (!(total > 0)) {
      return -1;
    }
    double target = w * total;
    double a = 0;
    for (int u = 0; u < ms.size(); u++) {
      if (ms.get(u).healthy()) {
        a += ms.get(u).weight();
        if (target < a) {
          return u;
        }
      }
    }
    throw new AssertionError("unreachable in Varnish");
  }

  @Property(tries = 300)
  void weightedPickEqualsVarnishLinearWalk(
      @ForAll @Size(min = 1, max = 40) List<@DoubleRange(min = 0, max = 5) Double> weights,
      @ForAll @Size(min = 40, max = 40) List<Boolean> health,
      @ForAll @DoubleRange(min = 0, max = 1, maxIncluded = false) double w) {
    List<Member> ms = new ArrayList<>();
    for (int i = 0; i < weights.size(); i++) {
      // some exact zeros, to exercise members that must never be chosen
      double wt = i % 7 == 3 ? 0 : weights.get(i);
      ms.add(new Member(Backend.named("m" + i), wt, health.get(i), 0, null, Double.NaN));
    }
    Snapshot s = Snapshot.of(ms, 1);
    assertThat(s.pickWeighted(w)).isEqualTo(linearPick(ms, w));
  }

  @Test
  void healthAndLookup() {
    Snapshot s =
        Snapshot.of(
            List.of(
                Member.of(Backend.named("a"), 1),
                Member.of(Backend.named("b"), 2).withHealth(false, 5)),
            1);
    assertThat(s.indexOf("b")).isEqualTo(1);
    assertThat(s.indexOf("zz")).isEqualTo(-1);
    assertThat(s.upCount()).isEqualTo(1);
    assertThat(s.totalUpWeight()).isEqualTo(1.0);
    assertThat(s.anyUp()).isTrue();
    assertThat(s.member(1).changedNanos()).isEqualTo(5);
  }

  @Test
  void duplicateNamesAndBadWeightsAreRefused() {
    assertThatThrownBy(
            () ->
                Snapshot.of(
                    List.of(Member.of(Backend.named("a")), Member.of(Backend.named("a"))), 1))
        .hasMessageContaining("duplicate backend name a");
    assertThatThrownBy(() -> Member.of(Backend.named("a"), -1)).hasMessageContaining("weight of a");
    assertThatThrownBy(() -> Member.of(Backend.named("a"), Double.NaN))
        .hasMessageContaining("weight of a");
  }

  @Test
  void directorsLookupByExactName() {
    Backend a = Backend.named("a");
    io.fairway.director.varnish.RoundRobinDirector rr =
        new io.fairway.director.varnish.RoundRobinDirector("rr");
    Directors ds = Directors.builder().add(a).add(rr).build();
    assertThat(ds.lookup("a")).isSameAs(a);
    assertThat(ds.lookup("A")).isNull();
    assertThat(ds.director("rr")).isSameAs(rr);
    assertThat(ds.director("a")).isNull();
    assertThatThrownBy(() -> Directors.builder().add(a).add(Backend.named("a")))
        .hasMessageContaining("duplicate name a");
  }

  @Test
  void reloadKeepsChangeTimesOfUnchangedMembers() {
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(100);
    io.fairway.director.varnish.RoundRobinDirector d =
        new io.fairway.director.varnish.RoundRobinDirector("d", clock::get);
    d.replaceAll(List.of(Member.of(Backend.named("a")), Member.of(Backend.named("b"))));
    clock.set(200);
    d.replaceAll(
        List.of(
            Member.of(Backend.named("a"), 3),
            Member.of(Backend.named("b")).withHealth(false, 0),
            Member.of(Backend.named("c"))));
    assertThat(d.members()).extracting(Member::changedNanos).containsExactly(100L, 200L, 200L);
    assertThat(d.members().get(0).weight()).isEqualTo(3);
  }

  @Test
  void healthFlipKeepsChangedTimeOnlyWhenItFlips() {
    Member m = Member.of(Backend.named("a")).withChanged(10);
    assertThat(m.withHealth(true, 99).changedNanos()).isEqualTo(10);
    assertThat(m.withHealth(false, 99).changedNanos()).isEqualTo(99);
  }
}
