package io.fairway.daemon.announce;

import io.fairway.config.model.Announcement;
import io.fairway.config.model.Config;
import java.net.InetAddress;
import java.util.Map;
import java.util.Objects;

/**
 * What one load of the file says about announcing: the {@code global_defs} settings and each {@code
 * announce} service's address.
 *
 * @param announcement {@code announce_table}, {@code announce_withdraw_delay}, {@code
 *     lvs_sloppy_tcp}
 * @param services the announcing virtual servers' names and addresses; empty without a table
 */
public record AnnounceSettings(Announcement announcement, Map<String, InetAddress> services) {
  /** Nothing announced. */
  public static final AnnounceSettings NONE = new AnnounceSettings(Announcement.NONE, Map.of());

  public AnnounceSettings {
    Objects.requireNonNull(announcement, "announcement");
    services = Map.copyOf(services);
  }

  public static AnnounceSettings of(Config config) {
    return new AnnounceSettings(config.globalDefs().announcement(), AnnouncedServices.of(config));
  }
}
