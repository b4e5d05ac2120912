package io.fairway.table;

import java.util.List;

/** A service as read back from the table, with its destinations. */
public record ServiceEntry(Service service, List<DestEntry> dests, Stats stats) {
  public ServiceEntry {
    dests = List.copyOf(dests);
  }
}
