package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import io.fairway.director.SlowStart;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Slow start in the userspace schedulers themselves, on a clock the test moves (no sleeps): a
 * server that starts a ramp of 10 s takes, in every second of it, the share of new connections of a
 * server whose weight is {@code f · w} (f its ramp's progress), within 3 percentage points; after
 * the ramp exactly its share; and servers that do not ramp are scheduled as before.
 */
class SlowStartShareTest {
  static final long SECOND = 1_000_000_000L;
  static final long TICK = SECOND / 10;
  static final long RAMP = 10 * SECOND;
  static final int PER_TICK = 200;

  final AtomicLong clock = new AtomicLong(5 * SECOND);

  SchedService service(String sched, int... weights) {
    SchedService vs =
        new SchedService(
            Schedulers.create(sched, List.of()),
            Persistence.NONE,
            System::currentTimeMillis,
            clock::get);
    for (int i = 0; i < weights.length; i++) {
      vs.add(DestSpec.of("10.17.0." + (i + 1), 80, weights[i]));
    }
    return vs;
  }

  static Flow flow(int i) {
    try {
      return new Flow(
          InetAddress.getByName("192.0.2." + (1 + i % 200)),
          10000 + i,
          InetAddress.getByName("10.17.1.1"),
          80);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * Runs 12 s of traffic with the last server ramping from the start; each connection lives {@code
   * lifeTicks} ticks. Returns, per second, {observed share, expected share} of the ramping server.
   */
  double[][] run(SchedService vs, int lifeTicks) {
    List<SchedDest> dests = vs.dests();
    SchedDest ramping = dests.get(dests.size() - 1);
    vs.ramp(ramping, 0, RAMP);
    ArrayDeque<Connection[]> alive = new ArrayDeque<>();
    double[][] out = new double[12][2];
    int n = 0;
    for (int second = 0; second < 12; second++) {
      int toRamping = 0;
      double expected = 0;
      for (int tick = 0; tick < 10; tick++) {
        long elapsed = (second * 10L + tick) * TICK;
        double f = SlowStart.fraction(SlowStart.units(elapsed, RAMP));
        double rest = 0;
        for (SchedDest d : dests) {
          rest += d.equals(ramping) ? 0 : d.weight();
        }
        double w = f * ramping.weight();
        expected += w / (w + rest) / 10;
        Connection[] opened = new Connection[PER_TICK];
        for (int i = 0; i < PER_TICK; i++) {
          Connection c = vs.open(flow(n++));
          opened[i] = c;
          if (ramping.equals(c.dest())) {
            toRamping++;
          }
        }
        alive.add(opened);
        while (alive.size() > lifeTicks) {
          for (Connection c : alive.poll()) {
            c.closing();
            c.expire();
          }
        }
        clock.addAndGet(TICK);
      }
      out[second][0] = (double) toRamping / (10 * PER_TICK);
      out[second][1] = expected;
    }
    return out;
  }

  static void assertFollowsTheRamp(String what, double[][] shares) {
    double worst = 0;
    for (double[] s : shares) {
      worst = Math.max(worst, Math.abs(s[0] - s[1]));
    }
    System.out.printf(
        java.util.Locale.ROOT, "slow start %s: largest deviation %.4f%n", what, worst);
    for (int s = 0; s < shares.length; s++) {
      assertThat(shares[s][0])
          .as("%s: second %d, the ramping server's share", what, s)
          .isCloseTo(shares[s][1], offset(0.03));
    }
    assertThat(shares[0][0]).as("%s: it starts low", what).isLessThan(shares[11][0] / 4);
  }

  @Test
  void rrAdmitsTheRampingServerOnAGrowingFractionOfItsTurns() {
    SchedService vs = service("rr", 1, 1, 1);
    double[][] s = run(vs, 1);
    assertFollowsTheRamp("rr", s);
    assertThat(s[11][0]).as("after the ramp, exactly rr's third").isCloseTo(1 / 3.0, offset(0.005));
  }

  @Test
  void wrrScalesTheRampingServersWeightEvenAtWeightOne() {
    assertFollowsTheRamp("wrr 10/10/10", run(service("wrr", 10, 10, 10), 1));
    clock.set(5 * SECOND);
    assertFollowsTheRamp("wrr 1/1", run(service("wrr", 1, 1), 1));
  }

  @Test
  void lcHoldsTheRampingServerAtAFractionOfTheOthersConnections() {
    // Connections that live half a second, so lc balances live counts.
    assertFollowsTheRamp("lc", run(service("lc", 1, 1, 1), 5));
  }

  @Test
  void wlcAndSedFollowTheRampToo() {
    assertFollowsTheRamp("wlc", run(service("wlc", 2, 2, 2), 5));
    clock.set(5 * SECOND);
    assertFollowsTheRamp("sed", run(service("sed", 1, 1, 1), 5));
  }

  @Test
  void withoutARampTheScheduleIsTheKernelsAndTheRampEndsWithItsTime() {
    for (String sched : List.of("rr", "wrr", "lc", "wlc", "sed", "nq", "fo", "ovf")) {
      SchedService plain = service(sched, 3, 2, 1);
      SchedService ramped = service(sched, 3, 2, 1);
      // A ramp that has ended leaves the scheduler exactly as if there had been none.
      ramped.ramp(ramped.dests().get(2), 0, RAMP);
      clock.addAndGet(RAMP);
      for (int i = 0; i < 200; i++) {
        Connection a = plain.open(flow(i));
        Connection b = ramped.open(flow(i));
        assertThat(b.dest().name()).as("%s, connection %d", sched, i).isEqualTo(a.dest().name());
        if (sched.equals("ovf") || i % 7 == 0) { // ovf's weights are connection budgets
          for (Connection c : List.of(a, b)) {
            c.closing();
            c.expire();
          }
        }
      }
      assertThat(ramped.dests().get(2).ramping()).isFalse();
    }
  }

  @Test
  void aRampNeverRefusesWhenTheRampingServerIsTheOnlyOne() {
    for (String sched : List.of("rr", "wrr", "lc", "fo", "ovf")) {
      SchedService vs = service(sched, 5);
      vs.ramp(vs.dests().get(0), 0, RAMP);
      for (int i = 0; i < 20; i++) {
        Connection c = vs.open(flow(i));
        assertThat(c).as(sched).isNotNull();
        c.closing(); // ovf's weight is a budget of live connections
        c.expire();
      }
    }
  }

  @Test
  void foHandsARecoveredPrimaryItsTrafficProgressively() {
    SchedService vs = service("fo", 1, 5);
    SchedDest primary = vs.dests().get(1);
    vs.ramp(primary, 3 * SECOND, RAMP); // 30% of the way
    int toPrimary = 0;
    for (int i = 0; i < 1000; i++) {
      if (primary.equals(vs.open(flow(i)).dest())) {
        toPrimary++;
      }
    }
    assertThat(toPrimary).isEqualTo(300);
  }

  @Test
  void hashingSchedulersDoNotMoveClientsForARamp() {
    for (String sched : List.of("sh", "dh", "mh")) {
      SchedService plain = service(sched, 1, 1, 1);
      SchedService ramped = service(sched, 1, 1, 1);
      ramped.ramp(ramped.dests().get(2), 0, RAMP);
      for (int i = 0; i < 300; i++) {
        assertThat(ramped.pick(flow(i)).name()).as(sched).isEqualTo(plain.pick(flow(i)).name());
      }
    }
  }

  @Test
  void statusFiguresAreTheSchedulers() {
    SchedService vs = service("rr", 1, 1);
    SchedDest d = vs.dests().get(1);
    vs.ramp(d, 3_700_000_000L, RAMP);
    assertThat(d.rampUnits()).isEqualTo(37);
    assertThat(d.rampFraction()).isEqualTo(0.37);
    clock.addAndGet(SECOND);
    vs.open(flow(0)); // a pick moves the ramp
    assertThat(d.rampUnits()).isEqualTo(47);
    assertThat(Map.of("ramping", d.ramping())).containsEntry("ramping", true);
  }
}
