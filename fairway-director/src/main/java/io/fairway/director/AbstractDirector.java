package io.fairway.director;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The snapshot model every director shares: writers serialise on a lock, build a new immutable
 * {@link Snapshot} plus whatever the algorithm derives from it (a hash ring, a cursor), and publish
 * it with one volatile write; picks read that one volatile field and never lock.
 *
 * <p>Why: a pick happens for every connection, a change a few times a minute. Making the rare path
 * pay (copying arrays) keeps the hot path to a volatile read and some array indexing, with no
 * allocation, and a pick can never observe half of a change.
 *
 * <p>Layering: when a member is itself an {@code AbstractDirector}, this director registers with it
 * and re-derives its snapshot whenever the member's health flips, so a parent's view of "is this
 * child up" is also part of one snapshot. Cycles are refused.
 *
 * <p>Subclasses implement {@link #derive(Snapshot, State)} and call {@link #start()} at the end of
 * their constructor.
 *
 * @param <S> the algorithm's published state
 */
public abstract class AbstractDirector<S extends AbstractDirector.State> implements Director {

  /** The published state: a snapshot plus what the algorithm derives from it. */
  public abstract static class State {
    private final Snapshot snapshot;

    /** A state derived from this snapshot. */
    protected State(Snapshot snapshot) {
      this.snapshot = snapshot;
    }

    /** The member snapshot this state was derived from. */
    public final Snapshot snapshot() {
      return snapshot;
    }
  }

  private final String name;
  private final String algorithm;

  /** The director's clock in nanoseconds; health change times and rampup use it. */
  protected final LongSupplier clock;

  private final Object writeLock = new Object();
  private List<Member> members = List.of(); // guarded by writeLock
  private long version; // guarded by writeLock

  @SuppressWarnings("NullAway.Init") // set by start(), which every subclass constructor ends with
  private volatile S state;

  private final CopyOnWriteArrayList<AbstractDirector<?>> parents = new CopyOnWriteArrayList<>();

  /** Slow starts by member name ({@link #ramp}); guarded by writeLock. */
  private final java.util.Map<String, Ramps.Entry> rampByName = new java.util.HashMap<>();

  /** The slow starts over the published snapshot; {@code null} while nobody ramps. */
  private volatile @Nullable Ramps ramps;

  /**
   * The class of the last backend {@link #pick(Request)} returned, which is known not to be a
   * {@link Director}. Checking {@code instanceof Director} (an interface) on a class that does not
   * implement it walks the class's secondary supertypes on every call: about 18 ns of a 20 ns pick.
   * Whether a backend is a director depends only on its class, so one class comparison answers it
   * for the usual case of one backend type. Racy on purpose: any value a thread sees is a class
   * that was checked, so a stale one only costs a slow-path check.
   */
  private @Nullable Class<?> plainBackendClass;

  /**
   * A director with no members yet.
   *
   * @param name how configuration and other directors refer to it
   * @param algorithm the algorithm's configured name, e.g. {@code shard}
   * @param clock nanoseconds for health change times; {@code null} for {@link System#nanoTime()}
   */
  protected AbstractDirector(String name, String algorithm, @Nullable LongSupplier clock) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("director name must not be empty");
    }
    this.name = name;
    this.algorithm = algorithm;
    this.clock = clock == null ? System::nanoTime : clock;
  }

  /** Publishes the initial empty state; call at the end of the subclass constructor. */
  protected final void start() {
    synchronized (writeLock) {
      state = derive(Snapshot.of(List.of(), 0), null);
    }
  }

  /**
   * Builds the state to publish for a new snapshot. {@code previous} is the state being replaced
   * ({@code null} the first time), so expensive derived data (a shard ring) can be reused when only
   * health changed. Throw {@link IllegalArgumentException} to refuse the change; the old state
   * stays published.
   */
  protected abstract S derive(Snapshot snapshot, @Nullable S previous);

  /** The currently published state; read it once per pick. */
  public final S state() {
    return state;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String algorithm() {
    return algorithm;
  }

  /**
   * As {@link Director#pick(Request)}, with the same result; only the check whether the chosen
   * backend is itself a director is cached by class.
   */
  @Override
  public @Nullable Backend pick(Request request) {
    Backend b = choose(request);
    if (b == null || b.getClass() == plainBackendClass) {
      return b;
    }
    if (!(b instanceof Director d)) {
      plainBackendClass = b.getClass();
      return b;
    }
    return resolve(d, request);
  }

  /** The rest of {@link Director#pick(Request)} once a pick chose a nested director. */
  private static @Nullable Backend resolve(Director nested, Request request) {
    Backend b = nested;
    // Same loop and bound as Director.pick: the first choose already happened, at depth 0.
    for (int depth = 0; b instanceof Director d && depth < 64; depth++) {
      b = d.choose(request);
    }
    return b instanceof Director ? null : b;
  }

  @Override
  public boolean healthy() {
    return state.snapshot().anyUp();
  }

  @Override
  public final List<Member> members() {
    return state.snapshot().members();
  }

  /** The director's clock, in nanoseconds. */
  public final long now() {
    return clock.getAsLong();
  }

  // ---- changes: each publishes one new snapshot ----

  /**
   * Applies a batch of changes as one new snapshot (Varnish's {@code reconfigure}): the operator
   * function gets the current members and returns the new list. All or nothing: if the result is
   * invalid (duplicate names, a cycle) an {@link IllegalArgumentException} is thrown and the
   * published state does not change.
   */
  public final void update(UnaryOperator<List<Member>> change) {
    boolean wasUp;
    boolean isUp;
    synchronized (writeLock) {
      List<Member> next = List.copyOf(change.apply(members));
      checkNoCycle(next);
      S old = state;
      S s = derive(Snapshot.of(next, version + 1), old);
      wasUp = old.snapshot().anyUp();
      relink(members, next);
      members = next;
      version++;
      state = s;
      if (!rampByName.isEmpty()) {
        rebuildRamps(now());
      }
      isUp = s.snapshot().anyUp();
    }
    if (wasUp != isUp) {
      notifyParents();
    }
  }

  /** Adds a member at the end; its health change time is now. */
  public final void add(Member m) {
    long now = now();
    update(
        cur -> {
          List<Member> l = new ArrayList<>(cur);
          l.add(m.withChanged(now));
          return l;
        });
  }

  /**
   * Replaces all members at once (one snapshot), as a configuration reload does. A member that was
   * already present with the same health keeps its health change time, so a reload does not restart
   * anyone's rampup; new members and members whose health flips are stamped now.
   */
  public final void replaceAll(List<Member> next) {
    long now = now();
    update(
        cur -> {
          java.util.Map<String, Member> old = new java.util.HashMap<>();
          for (Member m : cur) {
            old.put(m.name(), m);
          }
          List<Member> l = new ArrayList<>(next.size());
          for (Member m : next) {
            Member was = old.get(m.name());
            l.add(
                m.withChanged(
                    was != null && was.healthy() == m.healthy() ? was.changedNanos() : now));
          }
          return l;
        });
  }

  /** Removes the member with this name; returns whether it was present. */
  public final boolean remove(String memberName) {
    boolean[] found = {false};
    update(
        cur -> {
          List<Member> l = new ArrayList<>(cur.size());
          for (Member m : cur) {
            if (m.name().equals(memberName)) {
              found[0] = true;
            } else {
              l.add(m);
            }
          }
          return l;
        });
    return found[0];
  }

  /** Sets a member's health verdict; returns whether the member exists. */
  public final boolean setHealthy(String memberName, boolean up) {
    long now = now();
    return modify(memberName, m -> m.withHealth(up, now));
  }

  /** Sets a member's weight; returns whether the member exists. */
  public final boolean setWeight(String memberName, double weight) {
    return modify(memberName, m -> m.withWeight(weight));
  }

  private boolean modify(String memberName, UnaryOperator<Member> f) {
    boolean[] found = {false};
    update(
        cur -> {
          List<Member> l = new ArrayList<>(cur);
          for (int i = 0; i < l.size(); i++) {
            if (l.get(i).name().equals(memberName)) {
              l.set(i, f.apply(l.get(i)));
              found[0] = true;
            }
          }
          return found[0] ? l : cur;
        });
    return found[0];
  }

  // ---- slow start ----

  /**
   * Whether this algorithm applies slow starts in its picks ({@link #ramp}). round_robin, random
   * and fallback do; hash does not (a ramp could only move keys), nor does shard, which has
   * Varnish's own {@code rampup}.
   */
  protected boolean rampsInChoose() {
    return false;
  }

  /**
   * Slow start for a member, in the director itself: from now the member (by name; it may be added
   * later) is {@code elapsed} into a ramp of {@code duration} and takes that fraction of its share
   * ({@link SlowStart}); {@code duration <= 0} or {@code elapsed >= duration} ends it.
   *
   * @return whether this algorithm ramps ({@link #rampsInChoose}); when not, nothing changes
   */
  public final boolean ramp(String memberName, long elapsedNanos, long durationNanos) {
    if (!rampsInChoose()) {
      return false;
    }
    synchronized (writeLock) {
      long now = now();
      if (durationNanos <= 0 || elapsedNanos >= durationNanos) {
        rampByName.remove(memberName);
      } else {
        rampByName.put(memberName, new Ramps.Entry(now - Math.max(0, elapsedNanos), durationNanos));
      }
      rebuildRamps(now);
    }
    return true;
  }

  /** The fraction of its share the member takes now: 1 unless it is ramping (or unknown). */
  public final double rampFraction(String memberName) {
    Ramps r = currentRamps();
    if (r == null) {
      return 1.0;
    }
    Snapshot s = state.snapshot();
    int i = s.indexOf(memberName);
    return i < 0 || r.version != s.version() ? 1.0 : SlowStart.fraction(r.units(i));
  }

  /** Whether any member ramps: one volatile read, for a pick to skip the ramp path. */
  protected final boolean anyRamping() {
    return ramps != null;
  }

  /**
   * For picks: whether member {@code i} of {@code s} is admitted this turn. Always, unless it
   * ramps; then on the fraction of its turns its ramp has reached. A declined turn should go to
   * whoever the algorithm would have chosen without the member.
   */
  protected final boolean admit(Snapshot s, int i) {
    Ramps r = currentRamps();
    return r == null || r.version != s.version() || r.admit(i);
  }

  private @Nullable Ramps currentRamps() {
    Ramps r = ramps;
    if (r != null && r.next != Long.MAX_VALUE && now() - r.next >= 0) {
      synchronized (writeLock) {
        r = ramps;
        long now = now();
        if (r != null && now - r.next >= 0) {
          rebuildRamps(now);
          r = ramps;
        }
      }
    }
    return r;
  }

  private void rebuildRamps(long now) {
    ramps = rampByName.isEmpty() ? null : Ramps.of(state.snapshot(), rampByName, now);
  }

  // ---- layering ----

  /** A member director's health flipped: re-derive so the new health is in our snapshot. */
  private void childHealthChanged() {
    update(UnaryOperator.identity());
  }

  private void notifyParents() {
    for (AbstractDirector<?> p : parents) {
      p.childHealthChanged();
    }
  }

  private void relink(List<Member> before, List<Member> after) {
    Set<AbstractDirector<?>> old = new HashSet<>();
    for (Member m : before) {
      if (m.backend() instanceof AbstractDirector<?> d) {
        old.add(d);
      }
    }
    Set<AbstractDirector<?>> now = new HashSet<>();
    for (Member m : after) {
      if (m.backend() instanceof AbstractDirector<?> d) {
        now.add(d);
      }
    }
    for (AbstractDirector<?> d : old) {
      if (!now.contains(d)) {
        d.parents.remove(this);
      }
    }
    for (AbstractDirector<?> d : now) {
      if (!old.contains(d)) {
        d.parents.addIfAbsent(this);
      }
    }
  }

  private void checkNoCycle(List<Member> next) {
    for (Member m : next) {
      if (m.backend() instanceof Director d && reaches(d, this, 0)) {
        throw new IllegalArgumentException(
            "director " + name + " cannot contain " + d.name() + ": that would be a loop");
      }
    }
  }

  private static boolean reaches(Director from, Director target, int depth) {
    if (from == target) {
      return true;
    }
    if (depth > 64) {
      return true; // deeper than anything sane: treat as a loop rather than recurse forever
    }
    for (Member m : from.members()) {
      if (m.backend() instanceof Director d && reaches(d, target, depth + 1)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return algorithm + " " + name;
  }
}
