package io.fairway.proxy.http2;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/**
 * The HTTP/2 plane's counters, one set per proxy table: connections and streams, the streams each
 * connection carried, and the abuses answered with GOAWAY, by kind, so that an operator sees a
 * flood as a number instead of in the heap.
 */
public final class H2Stats {
  /** What Fairway closed a connection for, with the GOAWAY's error code. */
  public enum Flood {
    /** Streams reset by the client faster than allowed (CVE-2023-44487). */
    RAPID_RESET("rapid_reset"),
    /**
     * A header block larger than the header list size, or cut into too many small CONTINUATION
     * frames (the 2024 CONTINUATION floods).
     */
    CONTINUATION("continuation"),
    /** Control frames (SETTINGS, PING) answered faster than the client reads the answers. */
    CONTROL_FRAMES("control_frames"),
    /** DATA frames without data, one after another. */
    EMPTY_FRAMES("empty_frames"),
    /**
     * Streams Fairway had to reset faster than allowed: streams opened beyond
     * SETTINGS_MAX_CONCURRENT_STREAMS (refused), malformed requests (empty HEADERS among them).
     */
    RESETS_SENT("resets_sent"),
    /** Any other connection error of the protocol (not a flood). */
    PROTOCOL("protocol");

    private final String label;

    Flood(String label) {
      this.label = label;
    }

    /** Its name as a metric label. */
    public String label() {
      return label;
    }
  }

  /**
   * Upper bounds of the streams-per-connection buckets; the last bucket is above every bound.
   * SETTINGS_MAX_CONCURRENT_STREAMS bounds streams at once, not over a connection's life.
   */
  private static final long[] STREAMS_BOUNDS = {0, 1, 2, 5, 10, 20, 50, 100, 1000, 10000};

  /** {@link #STREAMS_BOUNDS}, a copy. */
  public static long[] streamsBounds() {
    return STREAMS_BOUNDS.clone();
  }

  private final LongAdder connections = new LongAdder();
  private final LongAdder open = new LongAdder();
  private final LongAdder streams = new LongAdder();
  private final LongAdder openStreams = new LongAdder();
  private final LongAdder refused = new LongAdder();
  private final LongAdder malformed = new LongAdder();
  private final LongAdder trailersDropped = new LongAdder();

  /** Filled once here and only read after: safe to share between event loops. */
  private final Map<Flood, LongAdder> floods = floodAdders();

  private final LongAdder[] perConnection = adders(STREAMS_BOUNDS.length + 1);
  private final LongAdder perConnectionSum = new LongAdder();

  void connectionOpened() {
    connections.increment();
    open.increment();
  }

  /** A connection closed, having carried {@code streamCount} streams. */
  void connectionClosed(long streamCount) {
    open.decrement();
    int i = 0;
    while (i < STREAMS_BOUNDS.length && streamCount > STREAMS_BOUNDS[i]) {
      i++;
    }
    perConnection[i].increment();
    perConnectionSum.add(streamCount);
  }

  void streamOpened() {
    streams.increment();
    openStreams.increment();
  }

  void streamClosed() {
    openStreams.decrement();
  }

  void countRefused() {
    refused.increment();
  }

  void countMalformed() {
    malformed.increment();
  }

  void countTrailersDropped() {
    trailersDropped.increment();
  }

  private static LongAdder flood(Map<Flood, LongAdder> floods, Flood f) {
    return Objects.requireNonNull(floods.get(f), "one for every kind");
  }

  private static Map<Flood, LongAdder> floodAdders() {
    Map<Flood, LongAdder> m = new EnumMap<>(Flood.class);
    for (Flood f : Flood.values()) {
      m.put(f, new LongAdder());
    }
    return m;
  }

  void flood(Flood f) {
    flood(floods, f).increment();
  }

  /** HTTP/2 connections accepted (h2 by ALPN or h2c). */
  public long connections() {
    return connections.sum();
  }

  public long openConnections() {
    return open.sum();
  }

  /** Streams that carried a request. */
  public long streams() {
    return streams.sum();
  }

  public long openStreams() {
    return openStreams.sum();
  }

  /** Streams refused (RST_STREAM REFUSED_STREAM): opened beyond SETTINGS_MAX_CONCURRENT_STREAMS. */
  public long refusedStreams() {
    return refused.sum();
  }

  /** Requests reset as malformed (RFC 9113 8.1.1). */
  public long malformed() {
    return malformed.sum();
  }

  /**
   * Request trailers dropped: the request had a content-length, so no chunked body to carry them.
   */
  public long trailersDropped() {
    return trailersDropped.sum();
  }

  /** Connections closed with GOAWAY for {@code f}. */
  public long floods(Flood f) {
    return flood(floods, f).sum();
  }

  /**
   * Closed connections by the streams they carried: {@code [i]} those with at most {@link
   * #STREAMS_BOUNDS}{@code [i]} streams and more than the bound before (not cumulative; the last,
   * more than every bound).
   */
  public long[] streamsPerConnection() {
    long[] c = new long[perConnection.length];
    for (int i = 0; i < c.length; i++) {
      c[i] = perConnection[i].sum();
    }
    return c;
  }

  /** The streams of every closed connection, added up (the histogram's sum). */
  public long streamsOfClosedConnections() {
    return perConnectionSum.sum();
  }

  private static LongAdder[] adders(int n) {
    LongAdder[] a = new LongAdder[n];
    for (int i = 0; i < n; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }
}
