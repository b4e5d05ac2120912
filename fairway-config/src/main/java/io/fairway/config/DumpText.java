package io.fairway.config;

import io.fairway.config.model.Forwarding;
import io.fairway.config.model.LbKind;
import io.fairway.config.model.base.Script;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;

/**
 * The text of {@code check-config --dump} as the block writers build it (lines indented by block
 * depth) and the spellings of the values they share: quoted words, durations, numbers, {@code
 * on}/{@code off}, scripts and {@code lb_kind}.
 *
 * <p>Why one place for the spellings: the dump must parse back to an equal model, so a value is
 * written one way wherever it appears, and each spelling is checked against the parser once.
 */
final class DumpText {
  private final StringBuilder out = new StringBuilder();
  private int indent;

  void line(String s) {
    out.append("    ".repeat(indent)).append(s).append('\n');
  }

  void open(String s) {
    line(s + " {");
    indent++;
  }

  void close() {
    indent--;
    line("}");
  }

  /** The text written so far. */
  String text() {
    return out.toString();
  }

  /** Quotes a word if keepalived would otherwise split or cut it. */
  static String q(String s) {
    // A leading $, @ or ~ (or a lone include) would make the line a definition, a conditional,
    // a repeater or an include.
    if (s.isEmpty()
        || s.charAt(0) == '$'
        || s.charAt(0) == '@'
        || s.charAt(0) == '~'
        || LineText.isInclude(s)) {
      return "\"" + s + "\"";
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (LineText.isBlank(c) || c == '#' || c == '!' || c == '{' || c == '}' || c == '"') {
        return "\"" + s + "\"";
      }
    }
    return s;
  }

  static String time(Duration d) {
    return new BigDecimal(d.toNanos()).movePointLeft(9).stripTrailingZeros().toPlainString();
  }

  static String number(double d) {
    if (d == Math.rint(d)) {
      return Long.toString((long) d);
    }
    return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
  }

  static String onOff(boolean b) {
    return b ? "on" : "off";
  }

  static String script(Script s) {
    String cmd = s.command();
    String quoted = cmd.indexOf('"') >= 0 ? "'" + cmd + "'" : "\"" + cmd + "\"";
    StringBuilder sb = new StringBuilder(quoted);
    s.user().ifPresent(u -> sb.append(' ').append(q(u)));
    s.group().ifPresent(g -> sb.append(' ').append(q(g)));
    return sb.toString();
  }

  /** An {@code lb_kind}/{@code lvs_method} value with a tunnel's options. */
  static String forwarding(Forwarding f) {
    StringBuilder sb = new StringBuilder(f.method().name());
    if (f.method() == LbKind.TUN) {
      sb.append(" type ").append(f.tunnelType().name().toLowerCase(Locale.ROOT));
      if (f.tunnelPort() != 0) {
        sb.append(" port ").append(f.tunnelPort());
      }
      if (f.checksum() != Forwarding.TunnelChecksum.NONE) {
        sb.append(' ').append(f.checksum().name().toLowerCase(Locale.ROOT));
      }
    }
    return sb.toString();
  }
}
