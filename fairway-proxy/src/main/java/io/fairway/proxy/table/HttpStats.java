package io.fairway.proxy.table;

import java.util.concurrent.atomic.LongAdder;

/**
 * One real server's HTTP counters on the userspace data plane: responses by status class, the
 * request duration (request head in to response end out) and backend connect time as fixed-bucket
 * histograms, retries, failed backend connects, and the responses the proxy made up itself (502,
 * 503, 504) among the responses. A virtual service has one too, for the requests it could choose no
 * server for, and its client connections by protocol (HTTP/1.1 or h2).
 *
 * <p>Built for the hot path: every record is a handful of {@link LongAdder} increments (striped, no
 * lock, no allocation once a stripe exists) and a scan of a dozen bucket bounds; nothing is
 * formatted or looked up by name per request. Exposition (names, labels, the Prometheus model)
 * happens at scrape time in the daemon, from {@link #snapshot()}. {@code
 * -Dfairway.proxy.httpMetrics=false} turns recording off, to measure what it costs.
 */
public final class HttpStats {
  static final boolean ENABLED =
      Boolean.parseBoolean(System.getProperty("fairway.proxy.httpMetrics", "true"));

  /** Upper bounds of the request-duration buckets, seconds (the last bucket is +Inf). */
  // An array the exporters index alongside each snapshot's counts; nothing writes to it.
  @SuppressWarnings("MutablePublicArray")
  public static final double[] DURATION_BOUNDS = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
  };

  /** Upper bounds of the connect-time buckets, seconds. */
  // An array the exporters index alongside each snapshot's counts; nothing writes to it.
  @SuppressWarnings("MutablePublicArray")
  public static final double[] CONNECT_BOUNDS = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1
  };

  private final Histogram duration = new Histogram(DURATION_BOUNDS);
  private final Histogram connect = new Histogram(CONNECT_BOUNDS);

  /** 1xx..5xx at 0..4; anything else at 5. */
  private final LongAdder[] byClass = adders(6);

  private final LongAdder retries = new LongAdder();

  /**
   * The codes of {@link #generated}: what the proxy answers when a server fails or none is left.
   */
  // An array the exporters index alongside each snapshot's counts; nothing writes to it.
  @SuppressWarnings("MutablePublicArray")
  public static final int[] GENERATED_CODES = {502, 503, 504};

  private final LongAdder[] generated = adders(GENERATED_CODES.length);
  private final LongAdder connectFailures = new LongAdder();

  /**
   * The codes of {@link #clientErrors}: what the proxy answers a client whose request it refuses
   * (malformed, too slow, too large, unsupported), before any server is involved.
   */
  // An array the exporters index alongside each snapshot's counts; nothing writes to it.
  @SuppressWarnings("MutablePublicArray")
  public static final int[] CLIENT_CODES = {400, 408, 413, 414, 431, 501, 505};

  private final LongAdder[] clientErrors = adders(CLIENT_CODES.length);
  private final LongAdder resets = new LongAdder();
  private final LongAdder invalidResponses = new LongAdder();
  private final Histogram firstByte = new Histogram(DURATION_BOUNDS);

  /** What a client connection speaks. */
  public enum ClientProtocol {
    HTTP1("http/1.1"),
    H2("h2");

    private final String label;

    ClientProtocol(String label) {
      this.label = label;
    }

    /** As a metric label: the protocol's ALPN identifier. */
    public String label() {
      return label;
    }
  }

  private final LongAdder[] clientConnections = adders(ClientProtocol.values().length);
  private final LongAdder[] openClientConnections = adders(ClientProtocol.values().length);

  public void completed(int status, long nanos) {
    if (!ENABLED) {
      return;
    }
    int c = status / 100 - 1;
    byClass[c >= 0 && c < 5 ? c : 5].increment();
    duration.record(nanos);
  }

  public void connected(long nanos) {
    if (ENABLED) {
      connect.record(nanos);
    }
  }

  public void retried() {
    if (ENABLED) {
      retries.increment();
    }
  }

  /**
   * A response the proxy generated (its error page) instead of relaying one: a response like any
   * other in the class counts and the duration, and counted by code.
   */
  public void generated(int status, long nanos) {
    if (!ENABLED) {
      return;
    }
    completed(status, nanos);
    for (int i = 0; i < GENERATED_CODES.length; i++) {
      if (GENERATED_CODES[i] == status) {
        generated[i].increment();
      }
    }
  }

  public void connectFailed() {
    if (ENABLED) {
      connectFailures.increment();
    }
  }

  /**
   * An error page the proxy sends a client: counted by code when it is one of {@link
   * #CLIENT_CODES}, the server-side ones being counted by {@link #generated}.
   */
  public void answered(int status) {
    if (!ENABLED) {
      return;
    }
    for (int i = 0; i < CLIENT_CODES.length; i++) {
      if (CLIENT_CODES[i] == status) {
        clientErrors[i].increment();
      }
    }
  }

  /** The backend closed or reset a connection while an exchange was using it. */
  public void backendReset() {
    if (ENABLED) {
      resets.increment();
    }
  }

  /** The backend sent a response the proxy could not parse. */
  public void invalidResponse() {
    if (ENABLED) {
      invalidResponses.increment();
    }
  }

  /** From the request head in to the response head from the server. */
  public void firstByte(long nanos) {
    if (ENABLED) {
      firstByte.record(nanos);
    }
  }

  /**
   * A client connection of the virtual service began speaking {@code p} (h2: after ALPN, the
   * preface or the upgrade; a real server's counters never see one).
   */
  // Counters in arrays by ordinal: the snapshot's long[] has the same layout, and no map lookup
  // runs per connection.
  @SuppressWarnings("EnumOrdinal")
  public void clientConnectionOpened(ClientProtocol p) {
    if (ENABLED) {
      clientConnections[p.ordinal()].increment();
      openClientConnections[p.ordinal()].increment();
    }
  }

  /** A connection {@link #clientConnectionOpened} counted closed. */
  // As clientConnectionOpened: the counters' array is by ordinal.
  @SuppressWarnings("EnumOrdinal")
  public void clientConnectionClosed(ClientProtocol p) {
    if (ENABLED) {
      openClientConnections[p.ordinal()].decrement();
    }
  }

  /** The counters now (each read on its own; a scrape is not a transaction). */
  public Snapshot snapshot() {
    long[] classes = new long[6];
    for (int i = 0; i < 6; i++) {
      classes[i] = byClass[i].sum();
    }
    long[] made = new long[GENERATED_CODES.length];
    for (int i = 0; i < made.length; i++) {
      made[i] = generated[i].sum();
    }
    long[] client = new long[CLIENT_CODES.length];
    for (int i = 0; i < client.length; i++) {
      client[i] = clientErrors[i].sum();
    }
    long[] opened = new long[clientConnections.length];
    long[] open = new long[opened.length];
    for (int i = 0; i < opened.length; i++) {
      opened[i] = clientConnections[i].sum();
      open[i] = openClientConnections[i].sum();
    }
    return new Snapshot(
        classes,
        duration.snapshot(),
        connect.snapshot(),
        retries.sum(),
        made,
        connectFailures.sum(),
        new Errors(resets.sum(), invalidResponses.sum(), client, firstByte.snapshot()),
        new Clients(opened, open));
  }

  /**
   * A virtual service's client connections by {@link ClientProtocol} (zeros for a real server).
   *
   * @param opened connections that began speaking the protocol
   * @param open those still open
   */
  // Snapshots are values read once by the exporters, never compared: arrays keep the counters'
  // layout.
  @SuppressWarnings("ArrayRecordComponent")
  public record Clients(long[] opened, long[] open) {
    Clients plus(Clients o) {
      return new Clients(add(opened, o.opened), add(open, o.open));
    }
  }

  /**
   * The failures by cause that {@link Snapshot}'s first fields do not already count, and the time
   * to the first response byte.
   *
   * @param resets backend connections closed or reset while an exchange used them
   * @param invalidResponses responses the proxy could not parse
   * @param clientErrors error pages sent to clients, by {@link #CLIENT_CODES}
   * @param firstByte request head in to the server's response head
   */
  // Snapshots are values read once by the exporters, never compared: arrays keep the counters'
  // layout.
  @SuppressWarnings("ArrayRecordComponent")
  public record Errors(long resets, long invalidResponses, long[] clientErrors, Buckets firstByte) {
    Errors plus(Errors o) {
      return new Errors(
          resets + o.resets,
          invalidResponses + o.invalidResponses,
          add(clientErrors, o.clientErrors),
          firstByte.plus(o.firstByte));
    }
  }

  /**
   * A service's (or a server's) HTTP counters at one moment.
   *
   * @param byClass responses by status class: 1xx..5xx, then other (generated ones included)
   * @param duration request durations
   * @param connect backend connect times
   * @param retries requests retried on a fresh connection or another server
   * @param generated the responses the proxy generated, by {@link #GENERATED_CODES}
   * @param connectFailures backend connects that failed (refused, unreachable, timed out)
   * @param errors the other failures by cause, and the first-byte time
   * @param clients the client connections by protocol (a virtual service's only)
   */
  // Snapshots are values read once by the exporters, never compared: arrays keep the counters'
  // layout.
  @SuppressWarnings("ArrayRecordComponent")
  public record Snapshot(
      long[] byClass,
      Buckets duration,
      Buckets connect,
      long retries,
      long[] generated,
      long connectFailures,
      Errors errors,
      Clients clients) {
    /** Both added up (one server under several services of a virtual server group). */
    public Snapshot plus(Snapshot o) {
      return new Snapshot(
          add(byClass, o.byClass),
          duration.plus(o.duration),
          connect.plus(o.connect),
          retries + o.retries,
          add(generated, o.generated),
          connectFailures + o.connectFailures,
          errors.plus(o.errors),
          clients.plus(o.clients));
    }
  }

  /**
   * A histogram's state: {@code counts[i]} observations in bucket {@code i} (not cumulative; the
   * last is above every bound), and their sum in seconds.
   */
  // Snapshots are values read once by the exporters, never compared: arrays keep the counters'
  // layout.
  @SuppressWarnings("ArrayRecordComponent")
  public record Buckets(double[] bounds, long[] counts, double sumSeconds) {
    Buckets plus(Buckets o) {
      return new Buckets(bounds, add(counts, o.counts), sumSeconds + o.sumSeconds);
    }

    public long count() {
      long n = 0;
      for (long c : counts) {
        n += c;
      }
      return n;
    }
  }

  private static long[] add(long[] a, long[] b) {
    long[] s = a.clone();
    for (int i = 0; i < s.length; i++) {
      s[i] += b[i];
    }
    return s;
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
