package io.fairway.proxy.table;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many connections (L4) or requests (HTTP) at once one real server takes, learned from its
 * refusals, for the servers nobody gave a {@code max_conns}.
 *
 * <p>Why: a backend at its capacity does not queue what it cannot take; it closes it (nginx out of
 * {@code worker_connections} drains the connections that have not sent their request yet, a pool
 * full of threads resets). A proxy that keeps opening connections to it then spends the backend's
 * capacity on connections that are thrown away, and in a storm nearly every connection is one of
 * them. With a limit the surplus waits in the service's {@link SlotQueue} instead, as it does under
 * {@code max_conns}. Most operators never write a backend's capacity down, so it is learned.
 *
 * <p>How, as TCP's congestion window (and Netflix's AIMD limiter): there is no limit until the
 * server first refuses. A refusal sets the limit to 9/10 of what was in flight when it came (or of
 * the limit, if lower); a served one, while the limit is at least half used, raises it by 1/limit,
 * so it grows by about one per limit's worth of answers, and ten times slower within one of where
 * the server last refused (CUBIC's plateau): each probe past the capacity costs a refusal, which
 * the data plane cannot always hide (an L4 client's connection is closed), and near a known
 * capacity there is least to gain. One decrease per window: a refusal of a connection admitted
 * before the last decrease says nothing new (the decrease already answered the load it was admitted
 * under) and is not counted again, so a burst of refusals is one decrease, not a collapse to the
 * floor. A server that has not refused for {@link #FORGET_NANOS} while its limit was in use loses
 * it: capacity may have grown (a pool scaled), and the next refusal teaches a new one at once.
 *
 * <p>What is a refusal is the frontends' call: a connect that fails, or a fresh connection the
 * server closes before it sent a byte (L4) or a response (HTTP). A pooled HTTP connection closed
 * under a request is the keep-alive race, not a refusal.
 *
 * <p>Thread-safety: any event loop; the limit is read without a lock on every pick.
 */
final class LearnedLimit {
  static final int FLOOR = 1;
  static final double BACKOFF = 0.9;
  static final long FORGET_NANOS = TimeUnit.SECONDS.toNanos(60);

  /** How much slower the limit grows within one of where the server last refused. */
  static final double PLATEAU = 0.1;

  /** 0 while none is learned; otherwise {@code (int) window}. */
  private volatile int limit;

  /** The fractional limit the increases add to; guarded by this. */
  private double window;

  /** What was in force when the server last refused: growth slows near it; guarded by this. */
  private double ceiling;

  /** Decreases so far: the window a lease was admitted in. */
  private volatile int epoch;

  /** When the last refusal was counted; guarded by this. */
  private long lastRefusal;

  private final LongAdder refusals = new LongAdder();
  private final LongAdder hits = new LongAdder();

  /** The limit, 0 when none is learned. */
  int limit() {
    return limit;
  }

  /** The window a connection admitted now belongs to. */
  int epoch() {
    return epoch;
  }

  /**
   * The server refused a connection or request admitted in {@code admittedEpoch}, with {@code
   * inFlight} of them on it (that one included).
   *
   * @return whether the limit changed
   */
  synchronized boolean refused(int admittedEpoch, int inFlight, long now) {
    refusals.increment();
    if (admittedEpoch != epoch) {
      return false;
    }
    double base = limit == 0 ? inFlight : Math.min(window, inFlight);
    ceiling = base;
    window = Math.max(FLOOR, Math.floor(base * BACKOFF));
    limit = (int) window;
    epoch++;
    lastRefusal = now;
    return true;
  }

  /**
   * The server answered one, with {@code inFlight} on it.
   *
   * @return whether the limit changed
   */
  boolean served(int inFlight, long now) {
    int l = limit;
    if (l == 0 || inFlight * 2L < l) {
      return false;
    }
    synchronized (this) {
      if (limit == 0) {
        return false;
      }
      if (now - lastRefusal > FORGET_NANOS) {
        forget();
        return true;
      }
      window += (Math.abs(window - ceiling) < 1 ? PLATEAU : 1) / window;
      int next = (int) window;
      if (next == limit) {
        return false;
      }
      limit = next;
      return true;
    }
  }

  /** Back to no limit (the server left the table, or came back from failing its checks). */
  synchronized void forget() {
    limit = 0;
    window = 0;
    epoch++;
  }

  /** A pick found the server at this limit. */
  void hit() {
    hits.increment();
  }

  /** For metrics: refusals seen and picks turned away, since the server entered the service. */
  long refusals() {
    return refusals.sum();
  }

  long hits() {
    return hits.sum();
  }
}
