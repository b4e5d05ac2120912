package io.fairway.proxy.table;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * New connections (L4) and requests (HTTP) of one virtual service waiting for a real server under
 * its {@code uthreshold} or {@code max_conns}, oldest first: HAProxy's server {@code maxconn}
 * queue.
 *
 * <p>Why wait instead of refusing at once, as the kernel does: a backend that is full is usually
 * full for milliseconds (a request in flight ends), and a refused client comes straight back, so
 * refusing turns a full backend into a storm of new connections that costs the proxy more than the
 * traffic did. A waiter is woken when a lease of the service ends, and in any case every {@link
 * #NUDGE_MILLIS} ms while anyone waits (a slot can also free when an inactive L4 connection
 * expires, which no lease announces); it gives up after its timeout (the service's connect timeout,
 * as HAProxy's {@code timeout queue} defaults to {@code timeout connect}).
 *
 * <p>Oldest first: while anyone waits, a newcomer queues behind them instead of trying for itself
 * (and wakes the first in line, since a slot may be free), so a slot that frees goes to whoever
 * waited longest, not to whoever asked last.
 *
 * <p>Who waits, and whether a waiter's turn serves it, is {@link ProxyService#schedule}'s to
 * decide; the queue only keeps the order and the time.
 *
 * <p>Thread-safety: any thread may wake the queue; a waiter only ever runs on its own event loop.
 */
public final class SlotQueue {
  /** Waiters per service beyond which new ones are refused at once (the listener's backlog). */
  static final int MAX_WAITERS = 4096;

  /** How often a non-empty queue looks for a slot nobody announced. */
  static final long NUDGE_MILLIS = 100;

  /** One waiting connection or request. */
  private static final class Waiter {
    final EventLoop loop;
    final BooleanSupplier tryNow;
    final BooleanSupplier giveUp;
    @Nullable ScheduledFuture<?> timeout;

    /** Given up or served; guarded by the queue's lock. */
    boolean done;

    Waiter(EventLoop loop, BooleanSupplier tryNow, BooleanSupplier giveUp) {
      this.loop = loop;
      this.tryNow = tryNow;
      this.giveUp = giveUp;
    }
  }

  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

  /** {@code waiters.size()}, read without the lock on every lease's end. */
  private final AtomicInteger size = new AtomicInteger();

  private @Nullable ScheduledFuture<?> nudger;

  private final LongAdder queued = new LongAdder();
  private final LongAdder timedOut = new LongAdder();
  private final LongAdder refusedFull = new LongAdder();

  /**
   * Queues a waiter. Call on {@code loop}.
   *
   * @param tryNow tries to take a slot and go on; false when there still is none (the waiter stays
   *     first in line). Runs on {@code loop}. Also true when there is nothing left to wait for (the
   *     client went away)
   * @param giveUp runs on {@code loop} when {@code timeout} passed without a slot; true when it
   *     refused someone, false when the waiter had gone already (not counted as a timeout)
   * @return false when the queue is full: the caller refuses at once
   */
  boolean await(EventLoop loop, Duration timeout, BooleanSupplier tryNow, BooleanSupplier giveUp) {
    Waiter w = new Waiter(loop, tryNow, giveUp);
    boolean ahead;
    synchronized (this) {
      if (waiters.size() >= MAX_WAITERS) {
        refusedFull.increment();
        return false;
      }
      waiters.addLast(w);
      ahead = size.getAndIncrement() > 0;
      if (nudger == null) {
        nudger =
            loop.scheduleAtFixedRate(
                this::nudge, NUDGE_MILLIS, NUDGE_MILLIS, TimeUnit.MILLISECONDS);
      }
    }
    queued.increment();
    w.timeout = loop.schedule(() -> expire(w), timeout.toNanos(), TimeUnit.NANOSECONDS);
    if (ahead) {
      // It queued behind others without trying (oldest first), so a slot may be free: the first
      // in line tries.
      released();
    }
    return true;
  }

  /** Waiters now. */
  int waiting() {
    return size.get();
  }

  /** For metrics: now, and since the service began. */
  QueueStats stats() {
    return new QueueStats(size.get(), queued.sum(), timedOut.sum(), refusedFull.sum());
  }

  /** A lease of the service ended: the first waiter tries to take its slot. Any thread. */
  void released() {
    if (size.get() == 0) {
      return;
    }
    Waiter w;
    synchronized (this) {
      w = waiters.pollFirst();
      if (w == null) {
        return;
      }
      size.decrementAndGet();
    }
    w.loop.execute(() -> serve(w));
  }

  private void nudge() {
    synchronized (this) {
      if (waiters.isEmpty()) {
        Objects.requireNonNull(nudger, "nudge runs as the nudger").cancel(false);
        nudger = null;
        return;
      }
    }
    released();
  }

  /** On the waiter's loop, out of the queue: its turn. */
  private void serve(Waiter w) {
    synchronized (this) {
      if (w.done) {
        return;
      }
    }
    if (w.tryNow.getAsBoolean()) {
      synchronized (this) {
        w.done = true;
      }
      Objects.requireNonNull(w.timeout, "await arms it before the loop can serve").cancel(false);
      // The slot this one took may not have been the only one.
      released();
      return;
    }
    synchronized (this) {
      if (!w.done) {
        waiters.addFirst(w); // still first in line
        size.incrementAndGet();
      }
    }
  }

  private void expire(Waiter w) {
    synchronized (this) {
      if (w.done) {
        return;
      }
      w.done = true;
      if (waiters.remove(w)) {
        size.decrementAndGet();
      }
    }
    if (w.giveUp.getAsBoolean()) {
      timedOut.increment();
    }
  }
}
