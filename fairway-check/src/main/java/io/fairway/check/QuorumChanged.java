package io.fairway.check;

/**
 * A virtual server gained or lost quorum.
 *
 * <p>keepalived's thresholds: with {@code sum} the total clamped weight of alive real servers,
 * quorum is <em>gained</em> when it was down and {@code sum >= quorum + hysteresis}, and
 * <em>lost</em> when it was up and {@code sum == 0 || sum < quorum - hysteresis}. The asymmetry is
 * the hysteresis: a pool hovering at the threshold does not flap the sorry server in and out.
 *
 * @param virtualServer the virtual server's stable name
 * @param up true when quorum was gained
 * @param weightSum the weight sum that decided it
 * @param threshold the threshold it was compared against ({@code quorum ± hysteresis})
 * @param reason the real-server change that tipped it
 */
public record QuorumChanged(
    String virtualServer, boolean up, long weightSum, long threshold, Reason reason)
    implements CheckEvent {}
