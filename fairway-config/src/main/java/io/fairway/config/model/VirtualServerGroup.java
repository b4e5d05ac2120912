package io.fairway.config.model;

import io.fairway.config.model.base.Location;
import java.util.List;

/**
 * A {@code virtual_server_group NAME { ... }}: several services sharing one set of real servers.
 */
public record VirtualServerGroup(Location location, String name, List<GroupEntry> entries) {
  public VirtualServerGroup {
    entries = List.copyOf(entries);
  }
}
