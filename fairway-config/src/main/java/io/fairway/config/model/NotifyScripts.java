package io.fairway.config.model;

import io.fairway.config.model.base.Script;
import java.util.Objects;
import java.util.Optional;

/**
 * The scripts a real server's state changes run, {@code notify_up} and {@code notify_down}. {@link
 * #NONE} when neither is written.
 *
 * @param up script run when the server comes up
 * @param down script run when it goes down
 */
public record NotifyScripts(Optional<Script> up, Optional<Script> down) {
  /** No scripts. */
  public static final NotifyScripts NONE = new NotifyScripts(Optional.empty(), Optional.empty());

  public NotifyScripts {
    Objects.requireNonNull(up, "up");
    Objects.requireNonNull(down, "down");
  }
}
