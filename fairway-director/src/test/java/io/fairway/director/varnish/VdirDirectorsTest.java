package io.fairway.director.varnish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.director.Backend;
import io.fairway.director.Director;
import io.fairway.director.Member;
import io.fairway.director.Request;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** round_robin, fallback, random and hash against varnish-cache's b000NN / c0000N tests. */
class VdirDirectorsTest {

  static final Backend S1 = Backend.named("s1");
  static final Backend S2 = Backend.named("s2");
  static final Backend S3 = Backend.named("s3");
  static final Backend S4 = Backend.named("s4");

  static List<String> picks(Director d, int n) {
    List<String> l = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Backend b = d.pick(Request.EMPTY);
      l.add(b == null ? "-" : b.name());
    }
    return l;
  }

  @Test
  void roundRobinB00000() {
    RoundRobinDirector rr = new RoundRobinDirector("rr");
    for (Backend b : List.of(S1, S2, S3, S4)) {
      rr.add(Member.of(b));
    }
    assertThat(picks(rr, 6)).containsExactly("s1", "s2", "s3", "s4", "s1", "s2");
    rr.remove("s1");
    rr.remove("s2");
    rr.remove("s3");
    assertThat(picks(rr, 2)).containsExactly("s4", "s4");
    assertThat(rr.healthy()).isTrue();
  }

  @Test
  void roundRobinSkipsSickAndCursorSurvivesRemovalPastTheEnd() {
    RoundRobinDirector rr = new RoundRobinDirector("rr");
    for (Backend b : List.of(S1, S2, S3)) {
      rr.add(Member.of(b));
    }
    rr.setHealthy("s2", false);
    assertThat(picks(rr, 4)).containsExactly("s1", "s3", "s1", "s3");
    // [a,b,c], two resolves (cursor 2), remove c: Varnish reads a stale NULL slot and panics
    rr.setHealthy("s2", true);
    RoundRobinDirector r2 = new RoundRobinDirector("r2");
    for (Backend b : List.of(S1, S2, S3)) {
      r2.add(Member.of(b));
    }
    assertThat(picks(r2, 2)).containsExactly("s1", "s2");
    r2.remove("s3");
    assertThat(picks(r2, 3)).containsExactly("s1", "s2", "s1");
    rr.setHealthy("s1", false);
    rr.setHealthy("s2", false);
    rr.setHealthy("s3", false);
    assertThat(picks(rr, 1)).containsExactly("-");
    assertThat(rr.healthy()).isFalse();
  }

  @Test
  void fallbackB00001() {
    FallbackDirector fb = new FallbackDirector("fb");
    for (Backend b : List.of(S1, S2, S3)) {
      fb.add(Member.of(b));
    }
    fb.setHealthy("s1", false);
    fb.setHealthy("s2", false);
    assertThat(picks(fb, 1)).containsExactly("s3");
    fb.setHealthy("s2", true);
    assertThat(picks(fb, 1)).containsExactly("s2");
    fb.setHealthy("s1", true);
    assertThat(picks(fb, 1)).containsExactly("s1");
    fb.setHealthy("s1", false);
    fb.remove("s2");
    assertThat(picks(fb, 1)).containsExactly("s3");
  }

  @Test
  void stickyFallbackB00004() {
    FallbackDirector fb = new FallbackDirector("fb", true, null);
    for (Backend b : List.of(S1, S2, S3)) {
      fb.add(Member.of(b));
    }
    fb.setHealthy("s1", false);
    assertThat(picks(fb, 1)).containsExactly("s2");
    fb.setHealthy("s2", false);
    assertThat(picks(fb, 1)).containsExactly("s3");
    fb.setHealthy("s1", true);
    assertThat(picks(fb, 1)).containsExactly("s3");
    fb.setHealthy("s3", false);
    assertThat(picks(fb, 1)).containsExactly("s1");
  }

  @Test
  void stickyFallbackRemovalsB00005() {
    FallbackDirector fb = new FallbackDirector("fb", true, null);
    for (Backend b : List.of(S1, S2, S3, S4)) {
      fb.add(Member.of(b));
    }
    fb.setHealthy("s1", false);
    fb.setHealthy("s2", false);
    assertThat(picks(fb, 1)).containsExactly("s3");
    fb.remove("s2"); // cur 2 -> 1, still s3
    assertThat(fb.current().name()).isEqualTo("s3");
    assertThat(picks(fb, 1)).containsExactly("s3");
    fb.remove("s4");
    assertThat(picks(fb, 1)).containsExactly("s3");
    fb.remove("s3"); // [s1], cur 0
    assertThat(picks(fb, 1)).containsExactly("-");
    fb.setHealthy("s1", true);
    assertThat(picks(fb, 1)).containsExactly("s1");
  }

  @Test
  void randomC00000WithSeedOne() {
    RandomDirector rd = new RandomDirector("rd", new Vrnd(1), null);
    for (Backend b : List.of(S1, S2, S3, S4)) {
      rd.add(Member.of(b, 1));
    }
    assertThat(picks(rd, 10))
        .containsExactly("s3", "s4", "s1", "s1", "s2", "s2", "s3", "s4", "s3", "s3");
  }

  @Test
  void randomOnlyPicksUpMembersR01575() {
    RandomDirector rd = new RandomDirector("rd", new Vrnd(5), null);
    for (int i = 0; i < 4; i++) {
      rd.add(Member.of(Backend.named("big" + i), 10000).withHealth(false, 0));
    }
    rd.add(Member.of(S1, 1));
    for (int i = 0; i < 4; i++) {
      rd.setHealthy("big" + i, false);
    }
    assertThat(picks(rd, 50)).containsOnly("s1");
  }

  @Test
  void randomSharesFollowWeights() {
    RandomDirector rd = new RandomDirector("rd", new Vrnd(42), null);
    double[] w = {1, 2, 3, 4, 0};
    for (int i = 0; i < w.length; i++) {
      rd.add(Member.of(Backend.named("b" + i), w[i]));
    }
    int n = 200_000;
    int[] count = new int[w.length];
    for (int i = 0; i < n; i++) {
      count[Integer.parseInt(rd.pick(Request.EMPTY).name().substring(1))]++;
    }
    // chi-square with 3 degrees of freedom over the weighted members; 16.27 is p = 0.001
    double chi = 0;
    for (int i = 0; i < 4; i++) {
      double exp = n * w[i] / 10.0;
      chi += (count[i] - exp) * (count[i] - exp) / exp;
    }
    assertThat(chi).isLessThan(16.27);
    assertThat(count[4]).isZero(); // weight 0 is never chosen
  }

  @Test
  void hashB00003() {
    HashDirector h = new HashDirector("h");
    h.add(Member.of(S1, 1));
    h.add(Member.of(S2, 1));
    assertThat(h.pick(Request.ofString("/1"))).isSameAs(S2);
    assertThat(h.pick(Request.ofString("/3"))).isSameAs(S1);
    assertThat(h.pick(Request.ofString("/13"))).isSameAs(S1);
    assertThat(h.pick(Request.ofString("/8"))).isSameAs(S2);
    assertThat(h.pick(Request.ofString(""))).isSameAs(S1);
    assertThat(h.pick(Request.EMPTY)).isSameAs(S1);
    assertThat(h.pick(Request.ofString("127.0.0.1"))).isSameAs(S2);
    assertThat(h.pick(Request.ofKey(VarnishHash.hash32("/1")))).isSameAs(S2);
    h.remove("s1");
    assertThat(h.pick(Request.ofString("/3"))).isSameAs(S2);
  }

  @Test
  void layeringC00001FallbackOverRoundRobins() {
    Backend b1 = Backend.named("1");
    Backend b22 = Backend.named("22");
    Backend b333 = Backend.named("333");
    Backend b4444 = Backend.named("4444");
    RoundRobinDirector rr1 = new RoundRobinDirector("rr1");
    rr1.add(Member.of(b1));
    rr1.add(Member.of(b22));
    RoundRobinDirector rr2 = new RoundRobinDirector("rr2");
    rr2.add(Member.of(b333));
    rr2.add(Member.of(b4444));
    FallbackDirector fb = new FallbackDirector("fb");
    fb.add(Member.of(rr1));
    fb.add(Member.of(rr2));
    assertThat(picks(fb, 4)).containsExactly("1", "22", "1", "22");
    rr1.setHealthy("1", false);
    assertThat(picks(fb, 2)).containsExactly("22", "22");
    rr1.setHealthy("22", false); // rr1 has no healthy member: fb moves to rr2
    assertThat(fb.state().snapshot().up(0)).isFalse();
    assertThat(picks(fb, 4)).containsExactly("333", "4444", "333", "4444");
    rr1.setHealthy("1", true);
    assertThat(picks(fb, 1)).containsExactly("1");
  }

  @Test
  void layeringC00002RoundRobinOverRoundRobins() {
    RoundRobinDirector rr1 = new RoundRobinDirector("rr1");
    rr1.add(Member.of(S1));
    rr1.add(Member.of(S3));
    RoundRobinDirector rr2 = new RoundRobinDirector("rr2");
    rr2.add(Member.of(S2));
    rr2.add(Member.of(S4));
    RoundRobinDirector rr3 = new RoundRobinDirector("rr3");
    rr3.add(Member.of(rr1));
    rr3.add(Member.of(rr2));
    assertThat(picks(rr3, 6)).containsExactly("s1", "s2", "s3", "s4", "s1", "s2");
  }

  @Test
  void loopsAreRefused() {
    RoundRobinDirector a = new RoundRobinDirector("a");
    RoundRobinDirector b = new RoundRobinDirector("b");
    a.add(Member.of(b));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> b.add(Member.of(a)))
        .hasMessageContaining("loop");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.add(Member.of(a)))
        .hasMessageContaining("loop");
  }
}
