package io.fairway.apply;

import java.util.Set;

/**
 * What the health-check framework knows about a virtual server when it starts: which real servers
 * start alive (non-alpha ones do, alpha ones don't) and whether the virtual server starts with
 * quorum.
 *
 * @param alive names of the real servers that start alive
 * @param quorumUp whether the alive servers' weights reach the quorum
 */
public record InitialState(Set<String> alive, boolean quorumUp) {
  public InitialState {
    alive = Set.copyOf(alive);
  }
}
