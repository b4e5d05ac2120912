package io.fairway.check;

/**
 * Receives the check engine's verdicts: the seam between health checking and whatever acts on it
 * (the apply layer writing IPVS or the userspace proxy's table, logs, the admin API).
 *
 * <p>Calls for one virtual server are serialised and in order. They happen on engine threads, so an
 * implementation must not block for long (a netlink round trip is fine; a network call to elsewhere
 * is not).
 *
 * <p>If {@link #serverStateChanged} throws, the transition is <em>not</em> committed: the server
 * keeps its old state and the transition is attempted again on the checker's next result. That is
 * keepalived's behaviour when a kernel call fails in {@code perform_svr_state}: a server that could
 * not be added is not reported as added.
 */
public interface VerdictListener {

  /** The state at start, before any check has run; called once per virtual server. */
  void initialState(VerdictSnapshot status);

  /** A real server became alive or dead. Throw to refuse the transition (it will be retried). */
  void serverStateChanged(ServerStateChanged event);

  /** A real server's clamped effective weight changed. */
  void weightChanged(WeightChanged event);

  /** A virtual server gained or lost quorum. */
  void quorumChanged(QuorumChanged event);

  /** Dispatches a generic event to the typed method; convenient for recorders and fan-out. */
  default void accept(CheckEvent event) {
    if (event instanceof ServerStateChanged e) {
      serverStateChanged(e);
    } else if (event instanceof WeightChanged e) {
      weightChanged(e);
    } else if (event instanceof QuorumChanged e) {
      quorumChanged(e);
    }
  }
}
