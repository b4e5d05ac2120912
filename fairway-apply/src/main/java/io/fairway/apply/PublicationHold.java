package io.fairway.apply;

import io.fairway.table.Table;
import io.fairway.table.TableException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Verdicts that arrive together are published together.
 *
 * <p>Right after start the first round of checks delivers its verdicts one by one, and on the
 * userspace proxy every table call republished its service's whole pool: 9,999 servers found dead
 * in a 10,000-server pool cost about 18 s of CPU. Under a hold ({@link Table#hold}) the calls still
 * run one at a time, each with its own result, so a refused verdict is still refused when it is
 * made (the check engine does not commit it and retries, keepalived's behaviour), and everything
 * else a verdict does — quorum, the sorry server, notify scripts, events — happens as it did; only
 * the publication of the touched pools waits for the release, once per service.
 *
 * <p>The window opens at the first verdict and closes after {@link #COST_FACTOR} times what the
 * last release took, at most {@link #MAX_WAIT}: publishing then costs at most about a tenth of the
 * time a stream of verdicts lasts, a small pool's verdicts wait microseconds, and none waits longer
 * than 50 ms, far below the one-second resolution of keepalived's check timers. Not a sleep: the
 * release is a timer task.
 *
 * <p>Nothing that is not a verdict is ever held. That is not left to each of the applier's methods
 * to remember: a verdict makes its changes inside {@link #verdict}, and every call that reaches the
 * table goes through {@link TolerantTable}, which calls {@link #beforeCall} first; outside a
 * verdict that publishes what is held before the call is made. So a start, a reload, drift repair,
 * a slow start step, an overflow change, shutdown, or an applier method added later, publishes the
 * verdicts held so far and is itself published as it would be without holds; a method that should
 * have been a verdict and is not only loses the coalescing. A method that calls nothing on the
 * table (a slow start step with none due) has nothing to publish and leaves the window as it is.
 * (An operator's action goes through the verdict paths, so that it and the verdicts held with it go
 * out together, and {@link AdminApplier} publishes before it returns.)
 *
 * <p>Not thread-safe: the applier calls it under its lock.
 */
final class PublicationHold {
  /** The longest a verdict's change waits to be published. */
  static final Duration MAX_WAIT = Duration.ofMillis(50);

  /** The window is this many times the last release's cost. */
  static final int COST_FACTOR = 10;

  private final Table table;
  private final LongSupplier nanos;

  /** The timer releases are scheduled on; null: no holds, every change is published at once. */
  private @Nullable Later later;

  private boolean open;

  /** Whether a verdict's changes are being made ({@link #verdict}): its table calls may be held. */
  private boolean inVerdict;

  /** What the last release took (nanos). */
  private long lastCost;

  PublicationHold(Table table, LongSupplier nanos) {
    this.table = Objects.requireNonNull(table, "table");
    this.nanos = Objects.requireNonNull(nanos, "nanos");
  }

  /** From now on verdicts are held, released by {@code later}. */
  void use(Later l) {
    later = Objects.requireNonNull(l, "later");
  }

  /**
   * A verdict is about to change the table: opens a hold unless one is open, and has {@code
   * release} run when its window is over. A table that holds nothing back (the kernel's) opens
   * none.
   */
  void join(Runnable release) {
    if (open || later == null || !table.hold()) {
      return;
    }
    open = true;
    try {
      later.after(window(), release);
    } catch (RuntimeException stopping) {
      release(); // the timer is shutting down: published now, as without holds
    }
  }

  /** A verdict's table changes. */
  interface Change {
    void run() throws TableException;
  }

  /**
   * Makes a verdict's changes: joins the hold ({@link #join}, with {@code release} for the timer),
   * and lets the table calls {@code change} makes be held with it.
   */
  void verdict(Runnable release, Change change) throws TableException {
    join(release);
    boolean outer = !inVerdict;
    inVerdict = true;
    try {
      change.run();
    } finally {
      if (outer) {
        inVerdict = false;
      }
    }
  }

  /**
   * A call is about to reach the table: unless a verdict makes it, what is held is published first,
   * so that the call is not held behind a verdict's window.
   */
  void beforeCall() {
    if (!inVerdict) {
      release();
    }
  }

  /** The window of the next hold. */
  Duration window() {
    long w =
        lastCost > MAX_WAIT.toNanos() / COST_FACTOR ? MAX_WAIT.toNanos() : lastCost * COST_FACTOR;
    return Duration.ofNanos(w);
  }

  /** Whether a hold is open. */
  boolean open() {
    return open;
  }

  /** Publishes what the hold held back; nothing when none is open. */
  void release() {
    if (!open) {
      return;
    }
    open = false;
    long start = nanos.getAsLong();
    table.release();
    lastCost = Math.max(0, nanos.getAsLong() - start);
  }
}
