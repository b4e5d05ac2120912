package io.fairway.director;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The bucket index must answer exactly like a plain scan of the running sums, for any target. */
class CumulativeIndexTest {

  /**
   * The reference: how many of sums[0 .. last-1] are {@code <= target}. For non-decreasing sums
   * that is the first k in [0, last) with target < sums[k], else last, i.e. Varnish's walk; for a
   * NaN target it is 0, as the binary search this index replaced answered.
   */
  static int scan(double[] sums, double target) {
    int last = sums.length - 1;
    int count = 0;
    for (int k = 0; k < last; k++) {
      if (sums[k] <= target) {
        count++;
      }
    }
    return count;
  }

  /** Running sums of these weights, in order, as Snapshot accumulates them. */
  static double[] runningSums(List<Double> weights) {
    double[] s = new double[weights.size()];
    double a = 0;
    for (int i = 0; i < s.length; i++) {
      a += weights.get(i);
      s[i] = a;
    }
    return s;
  }

  /** Every sum itself, its neighbours, 0, the total and beyond: where rounding could bite. */
  static List<Double> edgeTargets(double[] sums) {
    List<Double> t =
        new ArrayList<>(
            List.of(
                0.0,
                -0.0,
                -1.0,
                Double.NaN,
                Double.MIN_VALUE,
                Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY));
    for (double s : sums) {
      t.add(s);
      t.add(Math.nextDown(s));
      t.add(Math.nextUp(s));
    }
    return t;
  }

  @Property(tries = 500)
  void equalsScanForRandomWeightsWithZeros(
      @ForAll @Size(min = 1, max = 300) List<@DoubleRange(min = 0, max = 1000) Double> raw,
      @ForAll @IntRange(min = 0, max = 4) int zeroEvery,
      @ForAll long seed) {
    List<Double> weights = new ArrayList<>();
    for (int i = 0; i < raw.size(); i++) {
      // runs of exact zeros make equal consecutive sums, which must never be chosen
      weights.add(zeroEvery > 0 && i % (zeroEvery + 1) != 0 ? 0.0 : raw.get(i));
    }
    double[] sums = runningSums(weights);
    CumulativeIndex idx = new CumulativeIndex(sums);
    for (double t : edgeTargets(sums)) {
      assertThat(idx.firstAbove(t)).as("target %s", t).isEqualTo(scan(sums, t));
    }
    SplittableRandom r = new SplittableRandom(seed);
    double total = sums[sums.length - 1];
    for (int i = 0; i < 200; i++) {
      double t = r.nextDouble() * total;
      assertThat(idx.firstAbove(t)).as("target %s", t).isEqualTo(scan(sums, t));
    }
  }

  @Test
  void allZeroOneAndSkewedWeights() {
    for (double[] sums :
        new double[][] {
          {0.0},
          {0.0, 0.0, 0.0},
          {5.0},
          {1e-300, 1e-300, 2e-300},
          {0.0, 0.0, 1e300},
          {1.0, 1.0 + 1e-15, 1e9},
          {Double.MIN_VALUE, 2 * Double.MIN_VALUE}
        }) {
      CumulativeIndex idx = new CumulativeIndex(sums);
      for (double t : edgeTargets(sums)) {
        assertThat(idx.firstAbove(t)).as("target %s", t).isEqualTo(scan(sums, t));
      }
    }
  }

  /** Whole snapshots: random weights and health, w at the exact boundaries sum/total. */
  @Property(tries = 300)
  void snapshotEqualsVarnishWalkAtBoundaries(
      @ForAll @Size(min = 1, max = 120) List<@DoubleRange(min = 0, max = 7) Double> weights,
      @ForAll @Size(min = 120, max = 120) List<Boolean> health) {
    List<Member> ms = new ArrayList<>();
    for (int i = 0; i < weights.size(); i++) {
      double wt = i % 5 == 2 ? 0 : weights.get(i);
      ms.add(new Member(Backend.named("m" + i), wt, health.get(i), 0, null, Double.NaN));
    }
    Snapshot s = Snapshot.of(ms, 1);
    double total = s.totalUpWeight();
    List<Double> ws = new ArrayList<>(List.of(0.0, Math.nextDown(1.0), 0.5));
    if (total > 0) {
      double a = 0;
      for (Member m : ms) {
        if (m.healthy()) {
          a += m.weight();
          double w = a / total;
          for (double x : new double[] {w, Math.nextDown(w), Math.nextUp(w)}) {
            if (x >= 0 && x < 1) {
              ws.add(x);
            }
          }
        }
      }
    }
    for (double w : ws) {
      if (!(w * total < total)) {
        continue; // w rounds up to 1: never drawn by random or hash, and Varnish would panic
      }
      assertThat(s.pickWeighted(w)).as("w %s", w).isEqualTo(SnapshotTest.linearPick(ms, w));
    }
  }
}
