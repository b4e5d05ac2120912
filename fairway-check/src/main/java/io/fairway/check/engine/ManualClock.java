package io.fairway.check.engine;

import java.time.Duration;
import java.util.PriorityQueue;

/**
 * A scheduler whose clock only moves when told to. Tasks run on the caller's thread in time order
 * (ties in submission order), which makes rule tests exact: "after 3 s, two failures were seen" is
 * a statement, not a race. Public so that consumers of the verdict API (the apply layer) can drive
 * the engine deterministically too.
 */
public final class ManualClock implements EngineClock {
  private final PriorityQueue<Entry> queue = new PriorityQueue<>();
  private long now;
  private long sequence;

  private final class Entry implements Comparable<Entry>, Cancellable {
    final long at;
    final long seq;
    final Runnable task;
    boolean cancelled;

    Entry(long at, long seq, Runnable task) {
      this.at = at;
      this.seq = seq;
      this.task = task;
    }

    @Override
    public int compareTo(Entry o) {
      int c = Long.compare(at, o.at);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public void cancel() {
      synchronized (ManualClock.this) {
        cancelled = true;
        queue.remove(this);
      }
    }
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, Duration delay) {
    Entry e = new Entry(now + Math.max(0, delay.toNanos()), sequence++, task);
    queue.add(e);
    return e;
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  /** Moves the clock forward by {@code d}, running every task that falls due, in order. */
  public void advance(Duration d) {
    long target;
    synchronized (this) {
      target = now + d.toNanos();
    }
    while (true) {
      Entry next;
      synchronized (this) {
        next = queue.peek();
        if (next == null || next.at > target) {
          now = target;
          return;
        }
        queue.poll();
        now = next.at;
      }
      if (!next.cancelled) {
        next.task.run();
      }
    }
  }

  /** Number of tasks waiting. */
  public synchronized int pending() {
    return queue.size();
  }
}
