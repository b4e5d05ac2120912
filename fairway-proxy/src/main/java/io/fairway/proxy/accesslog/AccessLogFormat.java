package io.fairway.proxy.accesslog;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** The two line formats of {@code access_log}. */
public enum AccessLogFormat {
  /**
   * Apache's combined format (what goaccess' {@code COMBINED} reads), the user field carrying the
   * virtual server's name; referer and user agent are not kept and are written as {@code -}; a
   * request the client got no status for is logged with nginx's 499.
   */
  COMBINED("combined"),
  /** One JSON object a line, with every field of {@link AccessRecord}. */
  JSON("json");

  private static final DateTimeFormatter CLF =
      DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);

  /** The combined format's status when the client got none (the JSON's is null). */
  public static final int NOTHING_SENT = 499;

  private static final JsonFactory JSON_FACTORY = new JsonFactory();

  private final String keyword;

  AccessLogFormat(String keyword) {
    this.keyword = keyword;
  }

  public String keyword() {
    return keyword;
  }

  /** The format a keyword names, or {@code null}. */
  public static @Nullable AccessLogFormat of(String keyword) {
    for (AccessLogFormat f : values()) {
      if (f.keyword.equals(keyword)) {
        return f;
      }
    }
    return null;
  }

  /** One line, without its line end. */
  public String format(AccessRecord r) {
    return this == COMBINED ? combined(r) : json(r);
  }

  private static String combined(AccessRecord r) {
    StringBuilder b = new StringBuilder(160);
    b.append(r.client().getAddress().getHostAddress())
        .append(" - ")
        .append(token(r.virtualServer()))
        .append(" [")
        .append(CLF.format(Instant.ofEpochMilli(r.startMillis())))
        .append("] \"");
    if (r.method() == null) {
      b.append('-');
    } else {
      b.append(clean(r.method()))
          .append(' ')
          .append(clean(r.target()))
          .append(' ')
          .append(clean(r.protocol()));
    }
    b.append("\" ")
        // Nothing was sent: nginx's 499, since log readers (goaccess) refuse a line without one.
        .append(r.status() == 0 ? NOTHING_SENT : r.status())
        .append(' ')
        .append(r.bytesOut())
        .append(" \"-\" \"-\"");
    return b.toString();
  }

  /** A field without spaces: the combined format separates by them. */
  private static String token(@Nullable String s) {
    return s == null || s.isEmpty() ? "-" : clean(s).replace(' ', '_');
  }

  /**
   * What the client sent is not trusted to keep to one quoted field: quotes and controls escaped.
   */
  private static String clean(@Nullable String s) {
    if (s == null) {
      return "-";
    }
    StringBuilder b = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean bad = c == '"' || c == '\\' || c < 0x20 || c >= 0x7f;
      if (bad && b == null) {
        b = new StringBuilder(s.length() + 8).append(s, 0, i);
      }
      if (b != null) {
        if (bad) {
          b.append(String.format(Locale.ROOT, "\\x%02x", (int) c & 0xff));
        } else {
          b.append(c);
        }
      }
    }
    return b == null ? s : b.toString();
  }

  private static String json(AccessRecord r) {
    StringWriter w = new StringWriter(256);
    try (JsonGenerator g = JSON_FACTORY.createGenerator(w)) {
      g.writeStartObject();
      g.writeStringField("time", Instant.ofEpochMilli(r.startMillis()).toString());
      g.writeStringField("client", r.client().getAddress().getHostAddress());
      g.writeNumberField("client_port", r.client().getPort());
      g.writeStringField("virtual_server", r.virtualServer());
      g.writeStringField("real_server", r.realServer());
      g.writeStringField("method", r.method());
      g.writeStringField("target", r.target());
      g.writeStringField("protocol", r.protocol());
      if (r.status() == 0) {
        g.writeNullField("status");
      } else {
        g.writeNumberField("status", r.status());
      }
      g.writeNumberField("bytes_in", r.bytesIn());
      g.writeNumberField("bytes_out", r.bytesOut());
      micros(g, "queue_us", r.queueMicros());
      micros(g, "connect_us", r.connectMicros());
      micros(g, "first_byte_us", r.firstByteMicros());
      micros(g, "total_us", r.totalMicros());
      g.writeNumberField("retries", r.retries());
      g.writeStringField("tls_version", r.tlsVersion());
      g.writeStringField("sni", r.sni());
      g.writeStringField("termination", r.termination().text());
      g.writeStringField("backend_protocol", r.backendProtocol());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return w.toString();
  }

  private static void micros(JsonGenerator g, String name, long v) throws IOException {
    if (v < 0) {
      g.writeNullField(name);
    } else {
      g.writeNumberField(name, v);
    }
  }
}
