package io.fairway.config.model.vrrp;

import io.fairway.config.model.base.Script;
import java.util.Optional;

/**
 * The notify scripts of an instance or a sync group. keepalived runs the state's own script ({@code
 * notify_master} ...) first and then {@code notify} with the arguments {@code INSTANCE|GROUP NAME
 * STATE PRIORITY}.
 */
public record Notify(
    Optional<Script> master,
    Optional<Script> backup,
    Optional<Script> fault,
    Optional<Script> stop,
    Optional<Script> any) {
  public static Notify none() {
    return new Notify(
        Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
  }

  public boolean isEmpty() {
    return master.isEmpty()
        && backup.isEmpty()
        && fault.isEmpty()
        && stop.isEmpty()
        && any.isEmpty();
  }
}
