package io.fairway.check;

import java.util.List;

/**
 * A snapshot of one virtual server's verdicts.
 *
 * <p>Delivered once per virtual server through {@link VerdictListener#initialState} before any
 * check has run: servers whose checkers are all non-alpha start alive (keepalived adds them at once
 * and the first failure, not retry+1 failures, removes them), servers with an {@code alpha} checker
 * start dead until every checker has passed once. A server with no checker is alive for ever.
 *
 * @param name the virtual server's stable name
 * @param quorumUp whether quorum is up (computed from the alive servers with the gain threshold
 *     {@code quorum + hysteresis})
 * @param weightSum total clamped weight of alive servers
 * @param servers every real server, in configuration order
 */
public record VerdictSnapshot(
    String name, boolean quorumUp, long weightSum, List<RealServerVerdict> servers) {
  public VerdictSnapshot {
    servers = List.copyOf(servers);
  }
}
