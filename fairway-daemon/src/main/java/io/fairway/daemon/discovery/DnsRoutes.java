package io.fairway.daemon.discovery;

import io.fairway.daemon.admin.AdminRequest;
import io.fairway.daemon.admin.AdminResponse;
import io.fairway.daemon.admin.AdminRoutes;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /api/v1/dns} (every {@code real_server_dns} block's last resolution) in front of the
 * mode's other routes, and the same as a table on the status page, added after the virtual servers'
 * tables so the page's own renderer needs no knowledge of DNS.
 */
public final class DnsRoutes implements AdminRoutes {
  /** Where the section goes: before the page's footer. */
  static final String FOOT = "<p class=\"foot\">";

  private final AdminRoutes next;
  private final Discovery discovery;

  public DnsRoutes(AdminRoutes next, Discovery discovery) {
    this.next = next;
    this.discovery = discovery;
  }

  @Override
  public CompletableFuture<AdminResponse> handle(AdminRequest r) {
    List<String> p = r.path();
    if (p.equals(List.of("api", "v1", "dns"))) {
      if (!r.method().equals("GET") && !r.method().equals("HEAD")) {
        return CompletableFuture.completedFuture(
            AdminResponse.error(405, r.method() + " is not allowed on /api/v1/dns; use GET"));
      }
      return CompletableFuture.completedFuture(
          AdminResponse.json(200, DnsStatus.view(discovery.states())));
    }
    CompletableFuture<AdminResponse> answer = next.handle(r);
    if (!p.isEmpty() || !r.method().equals("GET")) {
      return answer;
    }
    return answer.thenApply(this::withSection);
  }

  private AdminResponse withSection(AdminResponse page) {
    List<Discovery.BlockState> states = discovery.states();
    if (page.status() != 200 || !page.contentType().startsWith("text/html") || states.isEmpty()) {
      return page;
    }
    String html = new String(page.body(), StandardCharsets.UTF_8);
    int at = html.indexOf(FOOT);
    if (at < 0 || html.contains("id=\"locked\"")) {
      return page; // the locked page shows no state
    }
    String out = html.substring(0, at) + section(states) + html.substring(at);
    return AdminResponse.of(200, page.contentType(), out.getBytes(StandardCharsets.UTF_8));
  }

  static String section(List<Discovery.BlockState> states) {
    StringBuilder b =
        new StringBuilder(
            "<table class=\"dns\" id=\"dns\"><caption>real_server_dns</caption>\n"
                + "<thead><tr><th>name</th><th>type</th><th>virtual server</th><th>where</th>"
                + "<th>last resolution</th><th>result</th><th>servers</th></tr></thead><tbody>");
    for (DnsStatus.Block x : DnsStatus.view(states).blocks()) {
      b.append("<tr class=\"dns-")
          .append(esc(x.result()))
          .append("\"><td>")
          .append(esc(x.name()))
          .append("</td><td>")
          .append(esc(x.type()))
          .append("</td><td>")
          .append(esc(x.virtualServer()))
          .append("</td><td>")
          .append(esc(x.location()))
          .append("</td><td>")
          .append(esc(x.lastResolution()))
          .append("</td><td>")
          .append(esc(x.result()))
          .append(x.error().isEmpty() ? "" : ": " + esc(x.error()))
          .append("</td><td>")
          .append(esc(String.join(", ", x.servers())))
          .append(
              x.draining().isEmpty() ? "" : "; draining: " + esc(String.join(", ", x.draining())))
          .append("</td></tr>");
    }
    return b.append("</tbody></table>\n").toString();
  }

  private static String esc(@Nullable String s) {
    if (s == null) {
      return "";
    }
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;")
        .replace("'", "&#39;");
  }
}
