package io.fairway.proxy.proxyprotocol;

import java.util.concurrent.atomic.LongAdder;

/**
 * What became of one service's client connections that had to begin with a PROXY header: each
 * refusal has its counter, so an operator sees whether a scanner, a misconfigured load balancer or
 * a slow client is behind them.
 */
public final class ProxyProtocolStats {
  final LongAdder accepted = new LongAdder();
  final LongAdder invalid = new LongAdder();
  final LongAdder timedOut = new LongAdder();
  final LongAdder closed = new LongAdder();

  /** The counters now. */
  public Counts counts() {
    return new Counts(accepted.sum(), invalid.sum(), timedOut.sum(), closed.sum());
  }

  /**
   * One service's PROXY header counts.
   *
   * @param accepted headers read (the connection went on to its frontend)
   * @param invalid refused: not a PROXY header (garbage, a client speaking HTTP or TLS directly), a
   *     malformed one, or one over the size bound
   * @param timedOut refused: the header was not complete within the deadline
   * @param closed the client closed (or half-closed) before its header was complete
   */
  public record Counts(long accepted, long invalid, long timedOut, long closed) {
    public static final Counts NONE = new Counts(0, 0, 0, 0);

    /** The sum of two services' counts (a virtual_server_group's members). */
    public Counts plus(Counts o) {
      return new Counts(
          accepted + o.accepted, invalid + o.invalid, timedOut + o.timedOut, closed + o.closed);
    }
  }
}
