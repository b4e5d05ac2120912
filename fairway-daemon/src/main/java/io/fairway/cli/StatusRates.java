package io.fairway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code fairway status --rates} and {@code --watch}: the status page's per-server columns as text,
 * from two reads of {@code GET /api/v1/services}. Rates and the p99 are the difference of the two
 * reads' counters over the time between them, as the page computes them, so both show the same
 * numbers for the same window.
 */
final class StatusRates {
  private static final String ROW = "  %-24s %-6s %-8s %-7s %7s %8s %8s %7s %7s %7s %19s %9s  %s%n";

  private StatusRates() {}

  /**
   * One frame.
   *
   * @param before the earlier read (null: the first frame, rates left blank)
   * @param after the later read
   * @param elapsed the time between the two reads
   * @param now the later read's time, for the "for" column
   */
  static String render(@Nullable JsonNode before, JsonNode after, Duration elapsed, Instant now) {
    Map<String, JsonNode> prev = new HashMap<>();
    if (before != null) {
      for (JsonNode vs : before) {
        for (JsonNode rs : vs.path("servers")) {
          prev.put(vs.path("name").asText() + " " + rs.path("name").asText(), rs);
        }
      }
    }
    double seconds = elapsed.toNanos() / 1e9;
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            ROW,
            "REAL SERVER",
            "STATE",
            "FOR",
            "WEIGHT",
            "ACT/MAX",
            "CONN/S",
            "REQ/S",
            "ERRORS",
            "ERR/S",
            "RETRIES",
            "IN / OUT",
            "P99",
            "LAST CHECK"));
    for (JsonNode vs : after) {
      b.append(vs.path("name").asText()).append(": quorum ").append(vs.path("quorum").asText());
      if (!vs.path("sorry_server").isNull() && vs.has("sorry_server")) {
        b.append(", sorry server ").append(vs.path("sorry_server_state").asText());
      }
      JsonNode q = vs.path("queue");
      if (q.isObject()) {
        b.append(", queue ")
            .append(q.path("waiting").asText())
            .append(" waiting (")
            .append(q.path("queued").asText())
            .append(" queued, ")
            .append(q.path("timed_out").asText())
            .append(" timed out, ")
            .append(q.path("refused_full").asText())
            .append(" refused full)");
      }
      b.append('\n');
      for (JsonNode rs : vs.path("servers")) {
        JsonNode p = prev.get(vs.path("name").asText() + " " + rs.path("name").asText());
        b.append(row(rs, p, seconds, now));
      }
    }
    return b.toString();
  }

  private static String row(JsonNode rs, @Nullable JsonNode prev, double seconds, Instant now) {
    JsonNode http = rs.path("http");
    boolean hasHttp = http.isObject();
    JsonNode check = rs.path("last_check");
    String since = check.path("since").asText(null);
    return String.format(
        Locale.ROOT,
        ROW,
        rs.path("name").asText(),
        rs.path("state").asText(),
        since == null ? "" : age(Duration.between(Instant.parse(since), now)),
        rs.path("effective_weight").asText() + "/" + rs.path("configured_weight").asText(),
        rs.path("active_connections").asText()
            + (rs.path("limit").asInt() > 0 ? "/" + rs.path("limit").asText() : ""),
        rate(rs, prev, "connections_total", seconds),
        hasHttp ? rate(http, prev == null ? null : prev.path("http"), "requests", seconds) : "",
        hasHttp ? http.path("errors").asText() : "",
        hasHttp ? rate(http, prev == null ? null : prev.path("http"), "errors", seconds) : "",
        hasHttp ? http.path("retries").asText() : "",
        bytes(rs.path("bytes_in").asLong()) + " / " + bytes(rs.path("bytes_out").asLong()),
        hasHttp && prev != null ? p99(prev.path("http"), http) : "",
        lastCheck(check));
  }

  /** The counter's growth per second, one decimal; blank without an earlier read or on a reset. */
  static String rate(JsonNode now, @Nullable JsonNode then, String field, double seconds) {
    if (then == null || !then.has(field) || seconds <= 0) {
      return "";
    }
    long d = now.path(field).asLong() - then.path(field).asLong();
    return d < 0 ? "" : String.format(Locale.ROOT, "%.1f", d / seconds);
  }

  /**
   * The 99th percentile of the requests between the reads, interpolated in its bucket as
   * Prometheus's {@code histogram_quantile} does; blank without requests in between.
   */
  static String p99(JsonNode then, JsonNode now) {
    JsonNode bounds = now.path("latency").path("bounds_seconds");
    JsonNode a = then.path("latency").path("total");
    JsonNode b = now.path("latency").path("total");
    if (!bounds.isArray() || !a.isArray() || !b.isArray() || a.size() != b.size()) {
      return "";
    }
    long[] d = new long[b.size()];
    long total = 0;
    for (int i = 0; i < d.length; i++) {
      d[i] = b.get(i).asLong() - a.get(i).asLong();
      total += d[i];
    }
    if (total <= 0) {
      return "";
    }
    double rank = 0.99 * total;
    long seen = 0;
    for (int i = 0; i < d.length; i++) {
      if (seen + d[i] >= rank) {
        if (i >= bounds.size()) {
          return ms(bounds.get(bounds.size() - 1).asDouble()) + "+";
        }
        double lo = i == 0 ? 0 : bounds.get(i - 1).asDouble();
        double hi = bounds.get(i).asDouble();
        return ms(lo + (hi - lo) * (d[i] == 0 ? 1 : (rank - seen) / d[i]));
      }
      seen += d[i];
    }
    return ms(bounds.get(bounds.size() - 1).asDouble()) + "+";
  }

  private static String ms(double seconds) {
    return String.format(Locale.ROOT, "%.1fms", seconds * 1000);
  }

  /** The last attempt ("http success: url /health ok: status 200 (3.1 ms)"), or the verdict. */
  private static String lastCheck(JsonNode check) {
    JsonNode a = check.path("last_attempt");
    if (a.isObject()) {
      String seen = a.path("observation").asText();
      return a.path("check").asText()
          + " "
          + a.path("outcome").asText()
          + (seen.isEmpty() ? "" : ": " + seen)
          + String.format(Locale.ROOT, " (%.1f ms)", a.path("duration_ms").asDouble());
    }
    return check.path("reason").asText("");
  }

  /** "2m13s", as the page shows it. */
  static String age(Duration d) {
    long s = Math.max(0, d.toSeconds());
    long days = s / 86400;
    long h = s / 3600 % 24;
    long m = s / 60 % 60;
    StringBuilder b = new StringBuilder();
    if (days > 0) {
      b.append(days).append('d');
    }
    if (days > 0 || h > 0) {
      b.append(h).append('h');
    }
    if (days > 0 || h > 0 || m > 0) {
      b.append(m).append('m');
    }
    return b.append(s % 60).append('s').toString();
  }

  static String bytes(long n) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = n;
    int i = 0;
    while (x >= 1024 && i < units.length - 1) {
      x /= 1024;
      i++;
    }
    return i == 0 ? n + "B" : String.format(Locale.ROOT, "%.1f%s", x, units[i]);
  }
}
