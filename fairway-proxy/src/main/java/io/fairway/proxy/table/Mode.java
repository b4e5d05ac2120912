package io.fairway.proxy.table;

/** What a virtual service's listener speaks. */
public enum Mode {
  /**
   * Layer 4: bytes are relayed unchanged, one backend per client connection ({@code lb_kind
   * PROXY}).
   */
  TCP,
  /**
   * HTTP/1.1 reverse proxy: each request is scheduled on its own, backend connections are pooled
   * and kept alive ({@code lb_kind HTTP}).
   */
  HTTP
}
