package io.fairway.check;

/**
 * A real server's effective weight changed without (necessarily) a change of alive/dead, e.g. a
 * {@code MISC_CHECK} with {@code misc_dynamic} exited with a new code, or a track file was
 * rewritten to drain the server for maintenance.
 *
 * <p>Only emitted when the clamped weight changes (keepalived's {@code update_svr_wgt}). The event
 * is published for dead servers too, so the consumer knows the weight to use when the server comes
 * back; a table should only be written if the server is alive (and, with a sorry server, if quorum
 * is up).
 *
 * @param virtualServer the virtual server's stable name
 * @param realServer the real server's stable name
 * @param alive whether the server is currently alive
 * @param previousWeight the previous clamped weight
 * @param weight the new weight, {@code configured + Σ dynamic contributions}, clamped to {@code [0,
 *     Integer.MAX_VALUE]}
 * @param reason the checker whose result moved the weight
 */
public record WeightChanged(
    String virtualServer,
    String realServer,
    boolean alive,
    int previousWeight,
    int weight,
    Reason reason)
    implements CheckEvent {}
