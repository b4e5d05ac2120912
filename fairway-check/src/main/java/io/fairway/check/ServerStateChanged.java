package io.fairway.check;

/**
 * A real server became alive (all of its checkers are up) or dead (at least one checker is down).
 *
 * <p>Semantics follow keepalived's {@code update_svr_checker_state}: several checkers combine with
 * AND, so a server goes dead on the first checker that fails and comes back only when the last
 * failing checker recovers.
 *
 * @param virtualServer the virtual server's stable name
 * @param realServer the real server's stable name
 * @param alive the new state
 * @param effectiveWeight the server's weight clamped to {@code [0, Integer.MAX_VALUE]}, as the
 *     table should carry it when the server is alive
 * @param reason the checker that caused the transition and what it saw
 */
public record ServerStateChanged(
    String virtualServer, String realServer, boolean alive, int effectiveWeight, Reason reason)
    implements CheckEvent {}
