package io.fairway.daemon.announce;

import io.fairway.config.model.Config;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerId;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/** The {@link Announcer}'s input from a loaded file: each {@code announce} service's address. */
public final class AnnouncedServices {
  private AnnouncedServices() {}

  /** Names of the {@code announce} virtual servers and their addresses; empty without a table. */
  public static Map<String, InetAddress> of(Config config) {
    Map<String, InetAddress> out = new LinkedHashMap<>();
    if (!config.globalDefs().announcement().enabled()) {
      return out;
    }
    for (VirtualServer vs : config.virtualServers()) {
      if (vs.announce() && vs.id() instanceof VirtualServerId.Address a) {
        out.put(vs.name(), a.address());
      }
    }
    return out;
  }
}
