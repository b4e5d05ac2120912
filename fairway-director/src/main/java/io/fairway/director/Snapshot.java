package io.fairway.director;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable view of a director's members at one moment, with everything a pick needs
 * precomputed: which members are up, their weights, and the running weight sum over up members in
 * add order (Varnish's {@code vdir} total and cumulative walk).
 *
 * <p>A pick reads exactly one snapshot, so it can never see a member counted in the total but
 * skipped in the walk, or a weight from before a change combined with health from after it.
 */
public final class Snapshot {

  private static final Snapshot EMPTY = new Snapshot(List.of(), 0L);

  private final Member[] members;
  private final Backend[] backends;
  private final double[] weights;
  private final boolean[] up;
  private final int upCount;
  private final int[] upIndex; // member index of the k-th up member
  private final double[] upCumulative; // running weight sum after the k-th up member
  private final double totalUpWeight;
  private final CumulativeIndex cumulative; // bucket index over upCumulative, for pickWeighted
  private final Map<String, Integer> byName;
  private final long version;

  private Snapshot(List<Member> list, long version) {
    int n = list.size();
    this.version = version;
    members = list.toArray(new Member[0]);
    backends = new Backend[n];
    weights = new double[n];
    up = new boolean[n];
    byName = new HashMap<>(n * 2);
    int[] ui = new int[n];
    double[] uc = new double[n];
    int k = 0;
    double a = 0.0;
    for (int i = 0; i < n; i++) {
      Member m = members[i];
      backends[i] = m.backend();
      weights[i] = m.weight();
      // A nested director is up only if it has an up member of its own.
      up[i] = m.healthy() && (!(m.backend() instanceof Director d) || d.healthy());
      if (byName.putIfAbsent(m.name(), i) != null) {
        throw new IllegalArgumentException("duplicate backend name " + m.name());
      }
      if (up[i]) {
        // Same summation order as Varnish's vdir_update_health, so weighted picks are bit-exact.
        a += weights[i];
        ui[k] = i;
        uc[k] = a;
        k++;
      }
    }
    upCount = k;
    upIndex = Arrays.copyOf(ui, k);
    upCumulative = Arrays.copyOf(uc, k);
    totalUpWeight = a;
    cumulative = new CumulativeIndex(upCumulative);
  }

  /** A snapshot of these members; throws {@link IllegalArgumentException} on duplicate names. */
  public static Snapshot of(List<Member> members, long version) {
    return members.isEmpty() && version == 0 ? EMPTY : new Snapshot(members, version);
  }

  /** Number of members (up or not). */
  public int size() {
    return members.length;
  }

  /** Increases with every publish; lets derived state notice whether anything changed. */
  public long version() {
    return version;
  }

  /** The i-th member in add order. */
  public Member member(int i) {
    return members[i];
  }

  /** The i-th member's backend. */
  public Backend backend(int i) {
    return backends[i];
  }

  /** The i-th member's weight. */
  public double weight(int i) {
    return weights[i];
  }

  /** Whether the i-th member is up (its health flag, and for a nested director, its health). */
  public boolean up(int i) {
    return up[i];
  }

  /** How many members are up. */
  public int upCount() {
    return upCount;
  }

  /** Whether any member is up: the director's own health. */
  public boolean anyUp() {
    return upCount > 0;
  }

  /** The index of the first up member in add order, or {@code -1} when none is up. */
  public int firstUp() {
    return upCount > 0 ? upIndex[0] : -1;
  }

  /** Sum of the weights of the up members. */
  public double totalUpWeight() {
    return totalUpWeight;
  }

  /** The index of the member with this name, or {@code -1}. */
  public int indexOf(String name) {
    Integer i = byName.get(name);
    return i == null ? -1 : i;
  }

  /** The members as an unmodifiable list. */
  public List<Member> members() {
    return List.of(members);
  }

  /**
   * Varnish's {@code vdir_pick_be}: for {@code w} in {@code [0,1)}, the first up member (in add
   * order) whose running weight sum exceeds {@code w * total}. Returns its index, or {@code -1}
   * when no member is up or the up weight is 0. Zero-weight members are never chosen.
   *
   * <p>The bucket index over the precomputed running sums ({@link CumulativeIndex}) gives the same
   * member as Varnish's linear walk, because the sums are accumulated in the same order with the
   * same doubles and compared with the same {@code <}.
   */
  public int pickWeighted(double w) {
    double total = totalUpWeight;
    if (!(total > 0.0)) {
      return -1;
    }
    // The last running sum equals the total and w < 1, so some sum exceeds the target; should
    // rounding say otherwise, the last up member is the answer, as it always was here.
    return upIndex[cumulative.firstAbove(w * total)];
  }
}
