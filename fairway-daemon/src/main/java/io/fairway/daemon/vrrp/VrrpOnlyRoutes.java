package io.fairway.daemon.vrrp;

import io.fairway.daemon.admin.AdminRequest;
import io.fairway.daemon.admin.AdminResponse;
import io.fairway.daemon.admin.AdminRoutes;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The admin routes of a VRRP-only {@code fairway run} (no table, no checkers): {@code
 * /healthz}, {@code /status}, {@code /metrics} (the JVM's and VRRP's) and the event stream;
 * {@link VrrpRoutes} adds {@code /api/v1/vrrp} in front.
 */
public final class VrrpOnlyRoutes implements AdminRoutes {
  private final Supplier<String> status;
  private final PrometheusRegistry registry;

  public VrrpOnlyRoutes(Supplier<String> status, PrometheusRegistry registry) {
    this.status = status;
    this.registry = registry;
  }

  record Health(String status) {}

  @Override
  public CompletableFuture<AdminResponse> handle(AdminRequest r) {
    List<String> p = r.path();
    boolean get = r.method().equals("GET") || r.method().equals("HEAD");
    AdminResponse out;
    if (!get) {
      out = AdminResponse.error(405, r.method() + " is not allowed on /" + String.join("/", p)
          + "; use GET");
    } else if (p.equals(List.of("healthz"))) {
      out = AdminResponse.json(200, new Health("ok"));
    } else if (p.equals(List.of("status"))) {
      out = AdminResponse.text(200, status.get());
    } else if (p.equals(List.of("metrics"))) {
      out = scrape();
    } else if (p.equals(List.of("api", "v1", "events"))) {
      out = AdminResponse.events();
    } else {
      out = AdminResponse.error(404, "no route " + r.method() + " /" + String.join("/", p)
          + "; a VRRP-only fairway run serves /api/v1/vrrp, /api/v1/events, /metrics, /status,"
          + " /healthz");
    }
    return CompletableFuture.completedFuture(out);
  }

  private synchronized AdminResponse scrape() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
    try {
      PrometheusTextFormatWriter w = PrometheusTextFormatWriter.create();
      w.write(out, registry.scrape(), io.prometheus.metrics.config.EscapingScheme.DEFAULT);
      return AdminResponse.of(200, w.getContentType(), out.toByteArray());
    } catch (IOException e) {
      return AdminResponse.error(500, "metrics: " + e.getMessage());
    }
  }
}
