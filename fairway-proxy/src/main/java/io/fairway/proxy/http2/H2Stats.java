package io.fairway.proxy.http2;

import java.util.concurrent.atomic.LongAdder;

/**
 * The HTTP/2 plane's counters, one set per proxy table: connections and streams, and the abuses the
 * codec answers with GOAWAY, by kind, so that an operator sees a flood as a number instead of in
 * the heap.
 */
public final class H2Stats {
  /** What a connection was closed for. */
  public enum Flood {
    /** Streams reset faster than allowed (CVE-2023-44487). */
    RAPID_RESET,
    /** A header block larger than SETTINGS_MAX_HEADER_LIST_SIZE (CONTINUATION flood). */
    HEADER_LIST,
    /** Control frames (SETTINGS, PING, RST) queued faster than the client reads the answers. */
    CONTROL_FRAMES,
    /** DATA frames without data, one after another. */
    EMPTY_FRAMES,
    /** Streams beyond SETTINGS_MAX_CONCURRENT_STREAMS. */
    TOO_MANY_STREAMS,
    /** Any other connection error of the protocol. */
    PROTOCOL
  }

  private final LongAdder connections = new LongAdder();
  private final LongAdder open = new LongAdder();
  private final LongAdder streams = new LongAdder();
  private final LongAdder openStreams = new LongAdder();
  private final LongAdder malformed = new LongAdder();
  private final LongAdder trailersDropped = new LongAdder();
  private final LongAdder[] floods = new LongAdder[Flood.values().length];

  public H2Stats() {
    for (int i = 0; i < floods.length; i++) {
      floods[i] = new LongAdder();
    }
  }

  void connectionOpened() {
    connections.increment();
    open.increment();
  }

  void connectionClosed() {
    open.decrement();
  }

  void streamOpened() {
    streams.increment();
    openStreams.increment();
  }

  void streamClosed() {
    openStreams.decrement();
  }

  void countMalformed() {
    malformed.increment();
  }

  void countTrailersDropped() {
    trailersDropped.increment();
  }

  void flood(Flood f) {
    floods[f.ordinal()].increment();
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

  /** Requests reset as malformed (RFC 9113 8.1.1). */
  public long malformed() {
    return malformed.sum();
  }

  /** Request trailers not passed to an HTTP/1.1 backend. */
  public long trailersDropped() {
    return trailersDropped.sum();
  }

  /** Connections closed with GOAWAY for {@code f}. */
  public long floods(Flood f) {
    return floods[f.ordinal()].sum();
  }
}
