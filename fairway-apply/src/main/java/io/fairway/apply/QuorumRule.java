package io.fairway.apply;

/**
 * A virtual server's quorum and hysteresis, as the check engine applies them (keepalived's
 * update_quorum_state): gained when {@code sum >= quorum + hysteresis}, lost when {@code sum == 0
 * || sum < quorum - hysteresis}, over the weights of the servers that serve.
 */
public record QuorumRule(long quorum, long hysteresis) {
  /** Quorum 1, no hysteresis: keepalived's default. */
  public static final QuorumRule DEFAULT = new QuorumRule(1, 0);

  /** The next quorum state from {@code up} for a weight sum. */
  public boolean next(boolean up, long sum) {
    if (!up) {
      return sum >= quorum + hysteresis;
    }
    return !(sum == 0 || sum < quorum - hysteresis);
  }
}
