package io.fairway.daemon.admin;

import io.fairway.apply.VirtualServerStatus;
import io.fairway.table.DestEntry;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a virtual server's sorry server is doing, as the runtime API, the page and the metrics show
 * it: {@code none} (no sorry server), {@code serving} (quorum lost: it takes every connection),
 * {@code overflow} (quorum holds, but with {@code overflow_to_sorry_server} new connections went to
 * it because the pool was full) or {@code idle}; with its connections read back from the table.
 *
 * <p>Why overflow is read from two facts: on the kernel the applier raises the standing-by sorry
 * server to its weight while the pool is full ({@link io.fairway.apply.OverflowWatch}), but the
 * userspace proxy overflows by itself with the sorry server left at weight 0, so there only the
 * connections it carries tell.
 *
 * @param state {@code none}, {@code serving}, {@code overflow} or {@code idle}
 * @param activeConnections its active connections, summed over the virtual server's services
 * @param connectionsTotal connections scheduled to it, summed likewise
 */
public record SorryState(String state, long activeConnections, long connectionsTotal) {

  static final SorryState NONE = new SorryState("none", 0, 0);

  /**
   * @param byKey the table read back, by service
   * @param raised the services whose sorry server the applier raised for overflow
   */
  static SorryState of(
      VirtualServerStatus vs, Map<ServiceKey, ServiceEntry> byKey, Set<ServiceKey> raised) {
    if (vs.sorryServer() == null) {
      return NONE;
    }
    long active = 0;
    long total = 0;
    for (Service s : vs.services()) {
      ServiceEntry e = byKey.get(s.key());
      for (DestEntry d : e == null ? List.<DestEntry>of() : e.dests()) {
        if (ServicesView.sameHost(vs.sorryServer(), d.dest())) {
          active += d.activeConnections();
          total += d.stats().connections();
        }
      }
    }
    String state =
        vs.sorryServing() ? "serving" : !raised.isEmpty() || active > 0 ? "overflow" : "idle";
    return new SorryState(state, active, total);
  }
}
