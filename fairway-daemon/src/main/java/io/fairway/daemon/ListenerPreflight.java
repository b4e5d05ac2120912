package io.fairway.daemon;

import io.fairway.apply.VirtualServer;
import io.fairway.proxy.ProxyTable;
import io.fairway.table.Service;
import io.fairway.table.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Before a reload changes anything: can the userspace plane listen on every service the new
 * configuration adds? A port another process holds would otherwise be found in the middle of
 * applying, with half the change made. The kernel plane binds nothing, so it has nothing to check.
 */
final class ListenerPreflight {
  private ListenerPreflight() {}

  /** The reasons the table cannot listen for {@code bindings}' new services; empty when it can. */
  static List<String> problems(Table table, Map<String, VirtualServer> bindings) {
    List<String> out = new ArrayList<>();
    if (table instanceof ProxyTable proxy) {
      for (VirtualServer vs : bindings.values()) {
        for (Service s : vs.services()) {
          proxy.checkListen(s.key()).ifPresent(out::add);
        }
      }
    }
    return out;
  }
}
