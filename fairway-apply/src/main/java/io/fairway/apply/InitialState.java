package io.fairway.apply;

import java.util.Map;
import java.util.Set;

/**
 * What the health-check framework knows about a virtual server when it starts: which real servers
 * start alive (non-alpha ones do, alpha ones don't), their effective weights, and whether the
 * virtual server starts with quorum.
 *
 * @param alive names of the real servers that start alive
 * @param weights effective weights by real server name; a server not named keeps its configured
 *     weight
 * @param quorumUp whether the alive servers' weights reach the quorum
 */
public record InitialState(Set<String> alive, Map<String, Integer> weights, boolean quorumUp) {
  public InitialState {
    alive = Set.copyOf(alive);
    weights = Map.copyOf(weights);
  }

  /** Configured weights. */
  public InitialState(Set<String> alive, boolean quorumUp) {
    this(alive, Map.of(), quorumUp);
  }
}
