package io.fairway.proxy.tls;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;

/** Handshake counters of a table's TLS listeners: how many succeeded, and why the others failed. */
public final class TlsStats {
  /** Why a handshake did not complete. */
  public enum Failure {
    /** No ClientHello, or no complete handshake, within the handshake timeout. */
    TIMEOUT,
    /** The client closed the connection before the handshake completed. */
    CLOSED,
    /** The peers share no protocol version or cipher, or the client sent what is not TLS. */
    PROTOCOL
  }

  private final LongAdder ok = new LongAdder();
  private final Map<Failure, LongAdder> failed = new EnumMap<>(Failure.class);

  public TlsStats() {
    for (Failure f : Failure.values()) {
      failed.put(f, new LongAdder());
    }
  }

  void succeeded() {
    ok.increment();
  }

  void failed(Failure f) {
    Objects.requireNonNull(failed.get(f), "every Failure has a counter").increment();
  }

  public long handshakes() {
    return ok.sum();
  }

  public long failures(Failure f) {
    return Objects.requireNonNull(failed.get(f), "every Failure has a counter").sum();
  }
}
