package io.fairway.daemon.vrrp;

import io.fairway.config.model.base.Addresses;
import io.fairway.daemon.EventHub;
import io.fairway.vrrp.view.VrrpTransition;
import java.time.temporal.ChronoUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Each VRRP state change on the event stream: {@code event: vrrp_master} (or {@code vrrp_backup},
 * {@code vrrp_fault}, {@code vrrp_stop}) with {@code data: {"time","kind","instance" or
 * "sync_group","from","to","priority","master","reason"}}; {@code reason} is the one line {@code
 * fairway events} prints.
 */
public final class VrrpEvents implements Consumer<VrrpTransition> {
  private final EventHub hub;

  public VrrpEvents(EventHub hub) {
    this.hub = hub;
  }

  /** The event's data. */
  public record Event(
      String time,
      String kind,
      @Nullable String instance,
      @Nullable String syncGroup,
      String from,
      String to,
      int priority,
      @Nullable String master,
      String reason) {}

  public static Event of(VrrpTransition t) {
    String kind = "vrrp_" + VrrpJson.wire(t.to());
    String master = t.master().map(Addresses::format).orElse(null);
    String reason =
        (t.group() ? "vrrp_sync_group " : "vrrp_instance ")
            + t.name()
            + ": "
            + t.from()
            + " -> "
            + t.to()
            + (t.group()
                ? ""
                : " (priority "
                    + t.priority()
                    + (master == null ? "" : ", master " + master)
                    + ")");
    return new Event(
        t.at().truncatedTo(ChronoUnit.MILLIS).toString(),
        kind,
        t.group() ? null : t.name(),
        t.group() ? t.name() : null,
        VrrpJson.wire(t.from()),
        VrrpJson.wire(t.to()),
        t.priority(),
        master,
        reason);
  }

  @Override
  public void accept(VrrpTransition t) {
    Event e = of(t);
    hub.publishData(e.kind(), e);
  }
}
