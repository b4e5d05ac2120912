package io.fairway.daemon.admin;

import io.fairway.daemon.CheckAttempts;
import io.fairway.daemon.admin.ServicesView.RealServerView;
import io.fairway.daemon.admin.ServicesView.VirtualServerView;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /}: one table per virtual server, rendered on the server so it reads without
 * JavaScript; {@code status.js} (served from the jar, like everything the page uses) then follows
 * the event stream and redraws the rows, and adds drain / maint / ready buttons once a token is
 * entered.
 */
final class StatusPage {
  /** What {@code /static/} serves. */
  static final java.util.Set<String> ASSETS = java.util.Set.of("status.js", "status.css");

  private StatusPage() {}

  static AdminResponse render(List<VirtualServerView> services) {
    return render(services, false);
  }

  /**
   * @param readsNeedToken the listener's reads need the token: the script reads through a session
   */
  static AdminResponse render(List<VirtualServerView> services, boolean readsNeedToken) {
    StringBuilder tables = new StringBuilder();
    for (VirtualServerView vs : services) {
      tables.append("<div class=\"wrap\">").append(table(vs)).append("</div>");
    }
    if (services.isEmpty()) {
      tables.append("<p id=\"none\">There is no virtual_server in this configuration.</p>");
    }
    return page(tables.toString(), readsNeedToken);
  }

  /**
   * The page without the state, for a browser without a credential on a listener whose reads need
   * the token: the form to enter it, and the script that trades it for a session.
   */
  static AdminResponse locked() {
    return page(
        "<p id=\"locked\">This admin listener shows its state only with its token: enter it above.</p>",
        true);
  }

  private static AdminResponse page(String content, boolean readsNeedToken) {
    StringBuilder b = new StringBuilder(4096);
    b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width\">")
        .append(
            "<title>Fairway status</title><link rel=\"icon\" href=\"data:,\"><link rel=\"stylesheet\" href=\"/static/status.css\">")
        .append("</head><body data-reads=\"")
        .append(readsNeedToken ? "token" : "open")
        .append("\"><h1>Fairway</h1>\n")
        .append(
            "<form id=\"auth\" hidden><label>Admin token <input id=\"token\" type=\"password\" autocomplete=\"off\">")
        .append("</label> <button type=\"submit\">Use</button> <span id=\"msg\"></span></form>\n")
        .append("<p id=\"vrrp\" hidden></p>\n")
        .append("<p id=\"announce\" hidden></p>\n")
        .append("<div id=\"services\">")
        .append(content);
    b.append(
            "</div>\n<p class=\"foot\">Live from <a href=\"/api/v1/events\">/api/v1/events</a>; JSON at ")
        .append(
            "<a href=\"/api/v1/services\">/api/v1/services</a>; <a href=\"/metrics\">/metrics</a>.</p>\n")
        .append("<script src=\"/static/status.js\"></script></body></html>\n");
    return AdminResponse.of(
        200, "text/html; charset=utf-8", b.toString().getBytes(StandardCharsets.UTF_8));
  }

  static String table(VirtualServerView vs) {
    StringBuilder b = new StringBuilder();
    b.append("<table class=\"vs\" data-vs=\"")
        .append(esc(vs.name()))
        .append("\"><caption>")
        .append(esc(vs.name()))
        .append(" — ")
        .append(esc(String.join(", ", vs.services())))
        .append(' ')
        .append(esc(vs.scheduler()))
        .append(" — quorum <span class=\"q-")
        .append(esc(vs.quorum()))
        .append("\">")
        .append(esc(vs.quorum()))
        .append("</span>");
    if (vs.sorryServer() != null) {
      b.append(" — sorry server ")
          .append(esc(vs.sorryServer()))
          .append(' ')
          .append(esc(vs.sorryServerState()));
    }
    if (vs.queue() != null) {
      ServicesView.QueueView q = vs.queue();
      b.append(" — queue ")
          .append(q.waiting())
          .append(" waiting (")
          .append(q.queued())
          .append(" queued, ")
          .append(q.timedOut())
          .append(" timed out, ")
          .append(q.refusedFull())
          .append(" refused full)");
    }
    b.append("</caption>\n<thead><tr>");
    for (String h : COLUMNS) {
      b.append("<th>").append(esc(h)).append("</th>");
    }
    b.append("</tr></thead><tbody>");
    for (RealServerView rs : vs.servers()) {
      b.append(row(rs));
    }
    b.append("</tbody>");
    if (!vs.servers().isEmpty()) {
      b.append(totalRow(vs.servers()));
    }
    return b.append("</table>\n").toString();
  }

  private static String row(RealServerView rs) {
    StringBuilder b = new StringBuilder();
    b.append("<tr class=\"st-")
        .append(esc(rs.state()))
        .append("\" data-rs=\"")
        .append(esc(rs.name()))
        .append("\">")
        .append(td(rs.name()))
        .append("<td class=\"state\" title=\"")
        .append(rs.lastCheck() == null ? "" : esc(rs.lastCheck().reason()))
        .append("\">")
        .append(esc(rs.state()))
        .append("</td>")
        .append("<td class=\"for\"></td>") // a duration goes stale: the script fills it in
        .append(td(rs.adminState()))
        .append(td(weight(rs)))
        .append(td(rs.activeConnections() + (rs.limit() > 0 ? " / " + rs.limit() : "")))
        .append(td(Long.toString(rs.connectionsTotal())))
        .append("<td></td>") // a rate needs two reads: the script fills it in
        .append(traffic(rs))
        .append(td(rs.bytesIn() + " B / " + rs.bytesOut() + " B"))
        .append("<td></td>") // the p99 too
        .append("<td></td>") // the charts are drawn by the script
        .append(td(rs.lastCheck() == null ? "" : attempt(rs.lastCheck())))
        .append(td(rs.lastCheck() == null ? "" : rs.lastCheck().since()))
        .append("</tr>");
    return b.toString();
  }

  /**
   * The virtual server's own row under its servers, as HAProxy's BACKEND line: their counters
   * summed (the script adds the rates, their maximum and the p99 of the sums).
   */
  static String totalRow(List<RealServerView> servers) {
    long up = 0, effective = 0, configured = 0, active = 0, conns = 0, in = 0, out = 0;
    long requests = 0, errors = 0, retries = 0;
    boolean http = false;
    for (RealServerView rs : servers) {
      up += "up".equals(rs.state()) ? 1 : 0;
      effective += rs.effectiveWeight();
      configured += rs.configuredWeight();
      active += rs.activeConnections();
      conns += rs.connectionsTotal();
      in += rs.bytesIn();
      out += rs.bytesOut();
      if (rs.http() != null) {
        http = true;
        requests += rs.http().requests();
        errors += rs.http().errors();
        retries += rs.http().retries();
      }
    }
    return "<tfoot><tr class=\"total"
        + (up == 0 ? " st-down" : "")
        + "\"><td>total</td><td class=\"state\">"
        + up
        + " / "
        + servers.size()
        + " up</td><td></td><td></td>"
        + td(effective + " / " + configured)
        + td(Long.toString(active))
        + td(Long.toString(conns))
        + "<td></td><td class=\"requests\">"
        + (http ? requests : "")
        + "</td><td></td><td></td><td class=\"errors\">"
        + (http ? errors : "")
        + "</td><td></td><td>"
        + (http ? retries : "")
        + "</td>"
        + td(in + " B / " + out + " B")
        + "<td></td><td></td><td></td><td></td></tr></tfoot>";
  }

  /** The columns, as status.js draws them too. */
  static final List<String> COLUMNS =
      List.of(
          "server",
          "state",
          "for",
          "admin",
          "weight",
          "active / limit",
          "conns",
          "conn/s",
          "reqs",
          "req/s",
          "max",
          "errors",
          "err/s",
          "retries",
          "in / out",
          "p99",
          "last 5 min",
          "last check",
          "since");

  private static String td(String text) {
    return "<td>" + esc(text) + "</td>";
  }

  /** The last attempt of any checker, as status.js shows it (times in UTC here). */
  static String attempt(ServicesView.CheckView c) {
    CheckAttempts.LastAttempt a = c.lastAttempt();
    if (a == null) {
      return "";
    }
    return a.check()
        + " "
        + a.outcome()
        + (a.observation().isEmpty() ? "" : ": " + a.observation())
        + " ("
        + a.durationMs()
        + " ms, "
        + a.at()
        + ")";
  }

  /**
   * Requests, their rate and its maximum (filled in by the script), errors, their rate, retries;
   * empty off the proxy.
   */
  static String traffic(RealServerView rs) {
    if (rs.http() == null) {
      return "<td class=\"requests\"></td><td></td><td></td><td class=\"errors\"></td><td></td><td></td>";
    }
    return "<td class=\"requests\">"
        + rs.http().requests()
        + "</td><td></td><td></td><td class=\"errors\">"
        + rs.http().errors()
        + "</td><td></td><td>"
        + rs.http().retries()
        + "</td>";
  }

  /** Effective / configured, and the ramp's weight now while a slow start runs. */
  static String weight(RealServerView rs) {
    return (rs.slowStartWeight() == null ? "" : rs.slowStartWeight() + " (slow start) → ")
        + rs.effectiveWeight()
        + " / "
        + rs.configuredWeight();
  }

  static AdminResponse asset(String name) {
    String type =
        name.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
    try (InputStream in = StatusPage.class.getResourceAsStream(name)) {
      if (in == null) {
        return AdminResponse.error(404, "no asset " + name);
      }
      return AdminResponse.of(200, type, in.readAllBytes());
    } catch (IOException e) {
      return AdminResponse.error(500, "cannot read " + name + ": " + e.getMessage());
    }
  }

  static String esc(@Nullable String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }
}
