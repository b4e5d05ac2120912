package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * A batch ({@link SchedService#beginBatch}) must leave every scheduler exactly where one update per
 * change leaves it: the same connections to the same servers afterwards. rr's cursor and wrr's
 * current weight depend on every change, which is what the replay in {@link
 * KernelScheduler#update(List, List)} is for; the rest depend on the list alone. Rounds of random
 * adds, edits and removes (with servers coming back, weights changing the gcd and the maximum,
 * thresholds) alternate with rounds of connections, so the cursors start the batches anywhere. With
 * slow start, servers ramp across the batches (the weights the schedulers compare are then scaled
 * and ramped, and the batch replays those).
 */
class BatchTest {

  private static final List<String> SCHEDULERS =
      List.of("rr", "wrr", "lc", "wlc", "sh", "dh", "mh", "sed", "nq", "fo", "ovf", "twos");

  @Property(tries = 300)
  void aBatchEndsWhereOneChangeAtATimeEnds(@ForAll long seed) {
    run(seed, false);
  }

  @Property(tries = 300)
  void aBatchDuringASlowStartEndsWhereOneChangeAtATimeEnds(@ForAll long seed) {
    run(seed, true);
  }

  private static void run(long seed, boolean ramps) {
    for (String name : SCHEDULERS) {
      Random r = new Random(seed);
      long[] now = {0};
      SchedService single =
          new SchedService(create(name, seed), Persistence.NONE, () -> 0L, () -> now[0]);
      SchedService batched =
          new SchedService(create(name, seed), Persistence.NONE, () -> 0L, () -> now[0]);
      List<Connection> openSingle = new ArrayList<>();
      List<Connection> openBatched = new ArrayList<>();
      java.util.Set<String> members = new java.util.HashSet<>();
      for (int round = 0; round < 8; round++) {
        if (ramps && !members.isEmpty() && r.nextBoolean()) {
          // A member starts (or restarts) a ramp of 1..4 s, 0..2 s in, in both services.
          String who = members.stream().sorted().toList().get(r.nextInt(members.size()));
          long length = 1_000_000_000L * (1 + r.nextInt(4));
          long elapsed = r.nextInt(2_000_000_000);
          single.ramp(member(single, who), elapsed, length);
          batched.ramp(member(batched, who), elapsed, length);
        }
        if (ramps) {
          now[0] += r.nextInt(700_000_000); // ramps step, some end
        }
        List<Object[]> changes = changes(r);
        batched.beginBatch();
        for (Object[] c : changes) {
          boolean present = members.contains((String) c[1]);
          apply(single, c, present);
          apply(batched, c, present);
          if ((int) c[0] == 2 && present) {
            members.remove((String) c[1]);
          } else {
            members.add((String) c[1]);
          }
        }
        batched.endBatch();
        assertThat(names(batched.dests()))
            .as("%s seed %d round %d: members", name, seed, round)
            .isEqualTo(names(single.dests()));
        int connections = r.nextInt(12);
        for (int i = 0; i < connections; i++) {
          Flow f = flow(r);
          Connection a = single.open(f);
          Connection b = batched.open(f);
          assertThat(b == null ? "none" : b.dest().name())
              .as("%s seed %d round %d connection %d", name, seed, round, i)
              .isEqualTo(a == null ? "none" : a.dest().name());
          if (a != null) {
            openSingle.add(a);
            openBatched.add(b);
          }
        }
        // Some connections end, so lc/wlc and the thresholds see counts go down too.
        for (int i = openSingle.size() - 1; i >= 0; i--) {
          if (r.nextInt(3) == 0) {
            expire(openSingle.remove(i));
            expire(openBatched.remove(i));
          }
        }
      }
    }
  }

  @Test
  void aBatchHandsTheSchedulerOneUpdate() {
    List<Integer> sizes = new ArrayList<>();
    KernelScheduler counting =
        new KernelScheduler() {
          final KernelScheduler rr = new RoundRobin();

          @Override
          public String name() {
            return "rr";
          }

          @Override
          public void update(List<SchedDest> kernelOrder) {
            sizes.add(kernelOrder.size());
            rr.update(kernelOrder);
          }

          @Override
          public SchedDest pick(int clientFold, int clientPort, int destinationFold) {
            return rr.pick(clientFold, clientPort, destinationFold);
          }
        };
    SchedService vs = new SchedService(counting);
    sizes.clear();
    vs.beginBatch();
    for (int i = 0; i < 1000; i++) {
      vs.add(DestSpec.of("10.0." + (i / 250) + "." + (1 + i % 250), 80, 1));
    }
    assertThat(vs.dests()).as("not published before the batch ends").isEmpty();
    vs.endBatch();
    assertThat(sizes).containsExactly(1000);
    assertThat(vs.dests()).hasSize(1000);
    vs.add(DestSpec.of("10.9.0.1", 80, 1));
    assertThat(sizes).as("outside a batch, one update per change").containsExactly(1000, 1001);
  }

  @Test
  void aBatchDuringASlowStartHandsTheSchedulerOneUpdate() {
    List<Integer> sizes = new ArrayList<>();
    SchedService vs = new SchedService(counting(sizes), Persistence.NONE, () -> 0L, () -> 0L);
    SchedDest ramping = vs.add(DestSpec.of("10.9.0.1", 80, 1));
    vs.ramp(ramping, 0, 60_000_000_000L);
    sizes.clear();
    vs.beginBatch();
    for (int i = 0; i < 1000; i++) {
      vs.add(DestSpec.of("10.0." + (i / 250) + "." + (1 + i % 250), 80, 1));
    }
    vs.endBatch();
    assertThat(sizes).as("one update for the batch, the ramp running").containsExactly(1001);
    assertThat(ramping.ramping()).isTrue();
  }

  private static KernelScheduler counting(List<Integer> sizes) {
    return new KernelScheduler() {
      final KernelScheduler wrr = new WeightedRoundRobin();

      @Override
      public String name() {
        return "wrr";
      }

      @Override
      public void update(List<SchedDest> kernelOrder) {
        sizes.add(kernelOrder.size());
        wrr.update(kernelOrder);
      }

      @Override
      public void update(List<SchedDest> kernelOrder, List<MemberChange> changes) {
        sizes.add(kernelOrder.size());
        wrr.update(kernelOrder, changes);
      }

      @Override
      public SchedDest pick(int clientFold, int clientPort, int destinationFold) {
        return wrr.pick(clientFold, clientPort, destinationFold);
      }
    };
  }

  private static SchedDest member(SchedService vs, String address) {
    for (SchedDest d : vs.dests()) {
      if (d.address().getHostAddress().equals(address)) {
        return d;
      }
    }
    throw new AssertionError("no member " + address);
  }

  @Test
  void aBatchStillRefusesATwiceListedServerAtOnce() {
    SchedService vs = new SchedService(new RoundRobin());
    vs.beginBatch();
    vs.add(DestSpec.of("10.0.0.1", 80, 1));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> vs.add(DestSpec.of("10.0.0.1", 80, 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listed twice");
    vs.endBatch();
    assertThat(vs.dests()).extracting(SchedDest::weight).containsExactly(1);
  }

  private static KernelScheduler create(String name, long seed) {
    if (name.equals("twos")) {
      Random draws = new Random(seed);
      return new PowerOfTwoChoices(draws::nextInt);
    }
    List<String> flags = name.equals("sh") || name.equals("mh") ? List.of("flag-1") : List.of();
    return Schedulers.create(name, flags, new Schedulers.Options(251, 0));
  }

  /** A round of changes over six servers: {op, address, weight, upper threshold}. */
  private static List<Object[]> changes(Random r) {
    List<Object[]> out = new ArrayList<>();
    int n = 1 + r.nextInt(9);
    for (int i = 0; i < n; i++) {
      int server = r.nextInt(6);
      int op = r.nextInt(3);
      int weight = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(6) * (1 + r.nextInt(2));
      int upper = r.nextInt(4) == 0 ? 1 + r.nextInt(3) : 0;
      out.add(new Object[] {op, "10.0.0." + (1 + server), weight, upper});
    }
    return out;
  }

  /** Removes (op 2) or edits a member; adds a server that is not one. */
  private static void apply(SchedService vs, Object[] c, boolean present) {
    int op = (int) c[0];
    DestSpec spec = DestSpec.of((String) c[1], 80, (int) c[2]).withThresholds((int) c[3], 0);
    if (op == 2 && present) {
      vs.remove(spec.address(), 80);
    } else if (present) {
      vs.edit(spec);
    } else {
      vs.add(spec);
    }
  }

  private static Flow flow(Random r) {
    byte[] a = {(byte) 192, 0, 2, (byte) r.nextInt(256)};
    try {
      return new Flow(
          InetAddress.getByAddress(a),
          1024 + r.nextInt(60000),
          InetAddress.getByName("10.1.0.1"),
          80);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  private static void expire(Connection c) {
    c.closing();
    c.expire();
  }

  private static List<String> names(List<SchedDest> dests) {
    return dests.stream().map(d -> d.name() + "/" + d.weight() + "/" + d.eweight()).toList();
  }
}
