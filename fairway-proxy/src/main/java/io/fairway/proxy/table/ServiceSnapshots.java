package io.fairway.proxy.table;

import io.fairway.table.DestEntry;
import io.fairway.table.DestKey;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Stats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the table reports of its services without stopping them: the {@code list} read-back with the
 * kernel's counters, and the snapshots the daemon's metrics read (HTTP counters, learned limits,
 * queues). Kept apart from the services, which decide, because reporting only reads and is shaped
 * by its readers (ipvsadm's listing, Prometheus), not by the scheduling.
 */
public final class ServiceSnapshots {
  private ServiceSnapshots() {}

  /** A service as {@code list} reports it; a detached sorry server counts in its totals only. */
  static ServiceEntry entry(ProxyService vs) {
    ProxyService.Pool p = vs.pool();
    List<DestEntry> dests = new ArrayList<>();
    long conns = 0;
    long in = 0;
    long out = 0;
    for (ProxyBackend rs : vs.all()) {
      DestEntry e = rs.entry();
      dests.add(e);
      conns += e.stats().connections();
      in += e.stats().inBytes();
      out += e.stats().outBytes();
    }
    if (p.sorry() != null && !p.sorryInTable()) {
      DestEntry e = p.sorry().entry();
      conns += e.stats().connections();
      in += e.stats().inBytes();
      out += e.stats().outBytes();
    }
    return new ServiceEntry(vs.service(), dests, new Stats(conns, 0, 0, in, out, 0, 0, 0, 0, 0));
  }

  /** The HTTP counters of every real server of every HTTP service, by service and destination. */
  public static Map<ServiceKey, Map<DestKey, HttpStats.Snapshot>> http(
      Map<ServiceKey, ProxyService> services) {
    Map<ServiceKey, Map<DestKey, HttpStats.Snapshot>> out = new LinkedHashMap<>();
    services.forEach(
        (k, vs) -> {
          if (vs.spec().mode() == Mode.HTTP) {
            Map<DestKey, HttpStats.Snapshot> m = new LinkedHashMap<>();
            for (ProxyBackend rs : vs.all()) {
              m.put(rs.key, rs.http.snapshot());
            }
            out.put(k, m);
          }
        });
    return out;
  }

  /** The HTTP counters of every HTTP service for the requests it chose no real server for. */
  public static Map<ServiceKey, HttpStats.Snapshot> httpServices(
      Map<ServiceKey, ProxyService> services) {
    Map<ServiceKey, HttpStats.Snapshot> out = new LinkedHashMap<>();
    services.forEach(
        (k, vs) -> {
          if (vs.spec().mode() == Mode.HTTP) {
            out.put(k, vs.http.snapshot());
          }
        });
    return out;
  }

  /** Every service's real servers' learned limits ({@link LearnedLimit}), by service and server. */
  public static Map<ServiceKey, Map<DestKey, LimitStats>> limits(
      Map<ServiceKey, ProxyService> services) {
    Map<ServiceKey, Map<DestKey, LimitStats>> out = new LinkedHashMap<>();
    services.forEach(
        (k, vs) -> {
          Map<DestKey, LimitStats> m = new LinkedHashMap<>();
          for (ProxyBackend rs : vs.all()) {
            m.put(rs.key, LimitStats.of(rs));
          }
          out.put(k, m);
        });
    return out;
  }

  /** Every service's queue for a slot, by service. */
  public static Map<ServiceKey, QueueStats> queues(Map<ServiceKey, ProxyService> services) {
    Map<ServiceKey, QueueStats> out = new LinkedHashMap<>();
    services.forEach((k, vs) -> out.put(k, vs.slots().stats()));
    return out;
  }
}
