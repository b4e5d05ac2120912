package io.fairway.daemon.admin;

import io.fairway.apply.ServiceBinding;
import io.fairway.daemon.Daemon;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.proxyprotocol.ProxyProtocolStats;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code fairway_virtual_server_proxy_protocol_total{virtual_server,result}}: what became of the
 * client connections of {@code proxy_protocol accept} services (result {@code accepted}, {@code
 * invalid}, {@code timeout}, {@code closed}). A rise of {@code invalid} is a client that bypasses
 * the load balancer in front (or a scanner); of {@code timeout}, clients that open and stay silent.
 */
final class ProxyProtocolMetrics {
  /** One virtual server's counts, summed over its services. */
  record Row(String virtualServer, ProxyProtocolStats.Counts counts) {}

  private volatile List<Row> rows = List.of();

  ProxyProtocolMetrics(PrometheusRegistry registry) {
    CounterWithCallback.builder()
        .name("fairway_virtual_server_proxy_protocol")
        .help(
            "Client connections of proxy_protocol accept services by what their PROXY header"
                + " came to: accepted, invalid (not PROXY, malformed, too long), timeout, closed")
        .labelNames("virtual_server", "result")
        .callback(
            cb ->
                rows.forEach(
                    r -> {
                      ProxyProtocolStats.Counts c = r.counts();
                      cb.call((double) c.accepted(), r.virtualServer(), "accepted");
                      cb.call((double) c.invalid(), r.virtualServer(), "invalid");
                      cb.call((double) c.timedOut(), r.virtualServer(), "timeout");
                      cb.call((double) c.closed(), r.virtualServer(), "closed");
                    }))
        .register(registry);
  }

  /** Reads the proxy's counters, when the daemon runs on the userspace table. */
  void refresh(Daemon daemon) {
    if (!daemon.ready() || !(daemon.applier().table() instanceof ProxyTable proxy)) {
      rows = List.of();
      return;
    }
    Map<ServiceKey, ProxyProtocolStats.Counts> stats = proxy.proxyProtocolStats();
    List<Row> out = new ArrayList<>();
    for (ServiceBinding vs : daemon.applier().config().values()) {
      ProxyProtocolStats.Counts sum = null;
      for (Service s : vs.services()) {
        ProxyProtocolStats.Counts c = stats.get(s.key());
        if (c != null) {
          sum = sum == null ? c : sum.plus(c);
        }
      }
      if (sum != null) { // only services that accept PROXY headers have a row
        out.add(new Row(vs.name(), sum));
      }
    }
    rows = out;
  }
}
