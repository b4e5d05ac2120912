package io.fairway.proxy.http;

import java.util.concurrent.atomic.LongAdder;

/**
 * One real server's HTTP counters on the userspace data plane: responses by status class, the
 * request duration (request head in to response end out) and backend connect time as fixed-bucket
 * histograms, and retries.
 *
 * <p>Built for the hot path: every record is a handful of {@link LongAdder} increments (striped,
 * no lock, no allocation once a stripe exists) and a scan of a dozen bucket bounds; nothing is
 * formatted or looked up by name per request. Exposition (names, labels, the Prometheus model)
 * happens at scrape time in the daemon, from {@link #snapshot()}. {@code
 * -Dfairway.proxy.httpMetrics=false} turns recording off, to measure what it costs.
 */
public final class HttpStats {
  static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("fairway.proxy.httpMetrics", "true"));

  /** Upper bounds of the request-duration buckets, seconds (the last bucket is +Inf). */
  public static final double[] DURATION_BOUNDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  /** Upper bounds of the connect-time buckets, seconds. */
  public static final double[] CONNECT_BOUNDS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};

  private final Histogram duration = new Histogram(DURATION_BOUNDS);
  private final Histogram connect = new Histogram(CONNECT_BOUNDS);
  /** 1xx..5xx at 0..4; anything else at 5. */
  private final LongAdder[] byClass = adders(6);
  private final LongAdder retries = new LongAdder();

  void completed(int status, long nanos) {
    if (!ENABLED) {
      return;
    }
    int c = status / 100 - 1;
    byClass[c >= 0 && c < 5 ? c : 5].increment();
    duration.record(nanos);
  }

  void connected(long nanos) {
    if (ENABLED) {
      connect.record(nanos);
    }
  }

  void retried() {
    if (ENABLED) {
      retries.increment();
    }
  }

  /** The counters now (each read on its own; a scrape is not a transaction). */
  public Snapshot snapshot() {
    long[] classes = new long[6];
    for (int i = 0; i < 6; i++) {
      classes[i] = byClass[i].sum();
    }
    return new Snapshot(classes, duration.snapshot(), connect.snapshot(), retries.sum());
  }

  /**
   * @param byClass responses by status class: 1xx..5xx, then other
   * @param duration request durations
   * @param connect backend connect times
   * @param retries requests retried on a fresh connection or another server
   */
  public record Snapshot(long[] byClass, Buckets duration, Buckets connect, long retries) {}

  /**
   * A histogram's state: {@code counts[i]} observations in bucket {@code i} (not cumulative; the
   * last is above every bound), and their sum in seconds.
   */
  public record Buckets(double[] bounds, long[] counts, double sumSeconds) {
    public long count() {
      long n = 0;
      for (long c : counts) {
        n += c;
      }
      return n;
    }
  }

  private static LongAdder[] adders(int n) {
    LongAdder[] a = new LongAdder[n];
    for (int i = 0; i < n; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }

  private static final class Histogram {
    private final double[] bounds;
    private final long[] boundNanos;
    private final LongAdder[] counts;
    private final LongAdder sumNanos = new LongAdder();

    Histogram(double[] bounds) {
      this.bounds = bounds;
      this.boundNanos = new long[bounds.length];
      for (int i = 0; i < bounds.length; i++) {
        boundNanos[i] = (long) (bounds[i] * 1e9);
      }
      this.counts = adders(bounds.length + 1);
    }

    void record(long nanos) {
      int i = 0;
      while (i < boundNanos.length && nanos > boundNanos[i]) {
        i++;
      }
      counts[i].increment();
      sumNanos.add(nanos);
    }

    Buckets snapshot() {
      long[] c = new long[counts.length];
      for (int i = 0; i < c.length; i++) {
        c[i] = counts[i].sum();
      }
      return new Buckets(bounds, c, sumNanos.sum() / 1e9);
    }
  }
}
