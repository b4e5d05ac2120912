package io.fairway.director.varnish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.SlowStart;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Slow start in the Varnish directors that ramp (round_robin, random, fallback), on a clock the
 * test moves: the ramping member's share of picks is that of a member whose weight is {@code f ·
 * w}, within 3 percentage points in every second of a 10 s ramp; hash and shard do not ramp.
 */
class DirectorSlowStartTest {
  static final long SECOND = 1_000_000_000L;
  static final long RAMP = 10 * SECOND;

  final AtomicLong clock = new AtomicLong(7 * SECOND);
  final Backend a = Backend.named("a");
  final Backend b = Backend.named("b");
  final Backend c = Backend.named("c");

  <D extends AbstractDirector<?>> D withMembers(D d) {
    d.add(Member.of(a));
    d.add(Member.of(b));
    d.add(Member.of(c));
    return d;
  }

  /** Per second of 12: {share of c, c's expected share with weight f against 1 + 1}. */
  double[][] shares(AbstractDirector<?> d, double rest) {
    assertThat(d.ramp("c", 0, RAMP)).isTrue();
    double[][] out = new double[12][2];
    for (int second = 0; second < 12; second++) {
      int toC = 0;
      for (int tick = 0; tick < 10; tick++) {
        double f = SlowStart.fraction(SlowStart.units((second * 10L + tick) * SECOND / 10, RAMP));
        out[second][1] += f / (f + rest) / 10;
        for (int i = 0; i < 100; i++) {
          if (d.pick(Request.EMPTY) == c) {
            toC++;
          }
        }
        clock.addAndGet(SECOND / 10);
      }
      out[second][0] = toC / 1000.0;
    }
    return out;
  }

  @Test
  void roundRobinAdmitsTheRampingMemberOnAGrowingFractionOfItsTurns() {
    RoundRobinDirector d = withMembers(new RoundRobinDirector("rr", clock::get));
    double[][] s = shares(d, 2);
    for (int i = 0; i < s.length; i++) {
      assertThat(s[i][0]).as("second %d", i).isCloseTo(s[i][1], offset(0.03));
    }
    assertThat(s[11][0]).as("after the ramp, its third").isCloseTo(1 / 3.0, offset(0.005));
    assertThat(d.rampFraction("c")).isEqualTo(1.0);
  }

  @Test
  void randomRedrawsOnTheRampingMembersDeclinedDraws() {
    RandomDirector d = withMembers(new RandomDirector("rnd", new Vrnd(42), clock::get));
    double[][] s = shares(d, 2);
    for (int i = 0; i < s.length; i++) {
      // Random: 1,000 picks a second, so a wider band (about 3 standard deviations).
      assertThat(s[i][0]).as("second %d", i).isCloseTo(s[i][1], offset(0.05));
    }
  }

  @Test
  void fallbackHandsTheRecoveredPrimaryItsTrafficProgressively() {
    FallbackDirector d = new FallbackDirector("fb", false, clock::get);
    d.add(Member.of(c));
    d.add(Member.of(a));
    d.ramp("c", 4 * SECOND, RAMP); // 40%
    int toC = 0;
    for (int i = 0; i < 1000; i++) {
      if (d.pick(Request.EMPTY) == c) {
        toC++;
      }
    }
    assertThat(toC).isEqualTo(400);
    assertThat(d.rampFraction("c")).isEqualTo(0.4);
  }

  @Test
  void aRampedMemberThatIsAloneIsStillChosen() {
    RoundRobinDirector d = new RoundRobinDirector("rr", clock::get);
    d.add(Member.of(c));
    d.ramp("c", 0, RAMP);
    for (int i = 0; i < 10; i++) {
      assertThat(d.pick(Request.EMPTY)).isSameAs(c);
    }
  }

  @Test
  void aRampGivenBeforeTheMemberIsAddedAppliesFromItsFirstPick() {
    RoundRobinDirector d = new RoundRobinDirector("rr", clock::get);
    d.add(Member.of(a));
    d.ramp("c", 0, RAMP);
    d.add(Member.of(c));
    int toC = 0;
    for (int i = 0; i < 200; i++) {
      if (d.pick(Request.EMPTY) == c) {
        toC++;
      }
    }
    assertThat(toC).isEqualTo(1); // 1% of its 100 turns: one admitted
  }

  @Test
  void hashAndShardDoNotRampInTheDirector() {
    assertThat(withMembers(new HashDirector("h", clock::get)).ramp("c", 0, RAMP)).isFalse();
    assertThat(new ShardDirector("s").ramp("c", 0, RAMP)).isFalse();
  }
}
