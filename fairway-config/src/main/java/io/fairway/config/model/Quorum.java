package io.fairway.config.model;

import io.fairway.config.model.base.Script;
import java.util.Objects;
import java.util.Optional;

/**
 * A virtual server's quorum: {@code quorum}, {@code hysteresis}, {@code quorum_up} and {@code
 * quorum_down}, as keepalived leaves them after loading (quorum capped to the weight sum of the
 * real servers, hysteresis to quorum - 1). {@link #DEFAULT} is keepalived's: quorum 1, no
 * hysteresis, no scripts.
 *
 * @param quorum minimum weight sum of alive real servers (effective: capped to the weight sum)
 * @param hysteresis quorum hysteresis (effective: at most quorum - 1)
 * @param up script run when quorum is gained ({@code quorum_up})
 * @param down script run when quorum is lost ({@code quorum_down})
 */
public record Quorum(long quorum, long hysteresis, Optional<Script> up, Optional<Script> down) {
  /** keepalived's default: quorum 1, hysteresis 0, no scripts. */
  public static final Quorum DEFAULT = new Quorum(1, 0, Optional.empty(), Optional.empty());

  public Quorum {
    Objects.requireNonNull(up, "up");
    Objects.requireNonNull(down, "down");
  }
}
