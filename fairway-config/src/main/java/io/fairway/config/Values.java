package io.fairway.config;

import io.fairway.config.model.Forwarding;
import io.fairway.config.model.base.Location;
import io.fairway.config.model.base.Script;
import io.fairway.table.AddressFamily;
import io.fairway.table.Protocol;
import java.math.BigDecimal;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Readers for keepalived's value types. Each returns null after reporting the error at the node, so
 * that one bad value doesn't hide the next one.
 */
final class Values {
  private static final Pattern IPV4 =
      Pattern.compile(
          "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)"
              + "(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
  private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]+");
  private static final Pattern TIMER = Pattern.compile("\\d{1,10}(\\.\\d{1,6})?|\\.\\d{1,6}");
  private static final Pattern DECIMAL =
      Pattern.compile("[+-]?(\\d{1,12}(\\.\\d{0,9})?|\\.\\d{1,9})");
  private static final Pattern DEC_LONG = Pattern.compile("[+-]?\\d{1,19}");
  private static final Pattern HEX_LONG = Pattern.compile("0[xX][0-9A-Fa-f]{1,15}");

  private final Diagnostics diags;

  Values(Diagnostics diags) {
    this.diags = diags;
  }

  void error(Node n, String message) {
    diags.error(n.line.file(), n.line.line(), message, n.line.text());
  }

  void warn(Node n, String message) {
    diags.warn(n.line.file(), n.line.line(), message, n.line.text());
  }

  /** A literal IPv4 or IPv6 address; never a host name (and never a DNS lookup). */
  static @Nullable InetAddress address(String s) {
    try {
      if (IPV4.matcher(s).matches()) {
        return InetAddress.getByName(s);
      }
      if (s.indexOf(':') >= 0 && IPV6_CHARS.matcher(s).matches()) {
        InetAddress a = InetAddress.getByName(s);
        return a instanceof Inet6Address || a instanceof Inet4Address ? a : null;
      }
    } catch (UnknownHostException | RuntimeException e) {
      return null;
    }
    return null;
  }

  @Nullable InetAddress address(Node n, int i, String what) {
    if (i > n.argc()) {
      error(n, n.keyword() + ": missing " + what);
      return null;
    }
    InetAddress a = address(n.arg(i));
    if (a == null) {
      error(n, n.keyword() + ": '" + n.arg(i) + "' is not an IPv4 or IPv6 address");
    }
    return a;
  }

  /** An unsigned integer in [min, max] (decimal, or 0x hex as strtoul with base 0 would). */
  @Nullable Long number(Node n, int i, long min, long max, String what) {
    if (i > n.argc()) {
      error(n, n.keyword() + ": missing " + what);
      return null;
    }
    String s = n.arg(i);
    Long v = parseLong(s);
    if (v == null) {
      error(n, n.keyword() + ": " + what + " '" + s + "' is not a number");
      return null;
    }
    if (v < min || v > max) {
      error(n, n.keyword() + ": " + what + " " + s + " is out of range " + min + ".." + max);
      return null;
    }
    return v;
  }

  static @Nullable Long parseLong(String s) {
    try {
      if (DEC_LONG.matcher(s).matches()) {
        return Long.parseLong(s);
      }
      if (HEX_LONG.matcher(s).matches()) {
        return Long.parseLong(s.substring(2), 16);
      }
    } catch (NumberFormatException e) {
      return null;
    }
    return null;
  }

  @Nullable Integer port(Node n, int i) {
    Long v = number(n, i, 0, 65535, "port");
    return v == null ? null : v.intValue();
  }

  /** A TIMER: decimal seconds with up to 6 decimals. */
  @Nullable Duration timer(Node n, int i, boolean allowZero) {
    if (i > n.argc()) {
      error(n, n.keyword() + ": missing a time in seconds");
      return null;
    }
    String s = n.arg(i);
    if (!TIMER.matcher(s).matches()) {
      error(n, n.keyword() + ": '" + s + "' is not a time in seconds (up to 6 decimals)");
      return null;
    }
    BigDecimal sec = new BigDecimal(s);
    if (sec.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
      error(n, n.keyword() + ": " + s + " seconds is too long");
      return null;
    }
    Duration d = Duration.ofNanos(sec.movePointRight(9).longValueExact());
    if (!allowZero && d.isZero()) {
      error(n, n.keyword() + ": must be more than 0 seconds");
      return null;
    }
    return d;
  }

  /**
   * {@code slow_start DURATION}: a TIMER, 0 = off. A negative value gets its own words, since "not
   * a time" would leave the operator guessing what is wrong with {@code -5}.
   */
  @Nullable Duration slowStart(Node n) {
    if (!args(n, 1, 1)) {
      return null;
    }
    if (n.arg(1).startsWith("-")) {
      error(n, "slow_start: " + n.arg(1) + " is negative; give a time in seconds (0 = off)");
      return null;
    }
    return timer(n, 1, true);
  }

  /** {@code max_conns N}: live connections (L4) or requests (HTTP) a server takes, 0 = no limit. */
  @Nullable Integer maxConns(Node n) {
    if (!args(n, 1, 1)) {
      return null;
    }
    Long m = number(n, 1, 0, Integer.MAX_VALUE, "connections");
    return m == null ? null : m.intValue();
  }

  /**
   * A {@code max_conns} on a service the kernel would carry gets a warning: IPVS counts closed
   * connections too ({@code uthreshold}) and has no limit on live ones, so only the userspace data
   * plane ({@code --userspace}) honours it, and only for TCP.
   */
  void maxConnsPlane(Node n, Forwarding f, Protocol p) {
    if (p == Protocol.UDP) {
      warn(n, "max_conns limits TCP connections; a UDP service's flows are not limited");
    } else if (f.method().isKernel()) {
      warn(
          n,
          "max_conns is honoured by the userspace data plane only (lb_kind PROXY or HTTP, or"
              + " --userspace); the kernel's IPVS has no limit on live connections (uthreshold"
              + " counts closed ones too)");
    }
  }

  /** A decimal (weights, warmup). */
  @Nullable Double decimal(Node n, int i, double min, double max, String what) {
    if (i > n.argc()) {
      error(n, n.keyword() + ": missing " + what);
      return null;
    }
    String s = n.arg(i);
    if (!DECIMAL.matcher(s).matches()) {
      error(n, n.keyword() + ": " + what + " '" + s + "' is not a number");
      return null;
    }
    double v = Double.parseDouble(s);
    if (v < min || v > max) {
      error(
          n,
          n.keyword() + ": " + what + " " + s + " is out of range " + fmt(min) + ".." + fmt(max));
      return null;
    }
    return v;
  }

  private static String fmt(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
  }

  /** {@code on|off|true|false|yes|no}; a bare keyword means true. */
  @Nullable Boolean bool(Node n, int i) {
    if (i > n.argc()) {
      return Boolean.TRUE;
    }
    switch (n.arg(i).toLowerCase(Locale.ROOT)) {
      case "on", "true", "yes" -> {
        return Boolean.TRUE;
      }
      case "off", "false", "no" -> {
        return Boolean.FALSE;
      }
      default -> {
        error(
            n, n.keyword() + ": '" + n.arg(i) + "' is not a boolean (on/off, true/false, yes/no)");
        return null;
      }
    }
  }

  /** Checks the argument count; reports and returns false if it is wrong. */
  boolean args(Node n, int min, int max) {
    if (n.hasBlock()) {
      error(n, "'" + n.keyword() + "' does not take a { } block");
      return false;
    }
    if (n.argc() < min) {
      error(
          n,
          "'"
              + n.keyword()
              + "' needs "
              + (min == max ? "" : "at least ")
              + min
              + " argument"
              + (min == 1 ? "" : "s"));
      return false;
    }
    if (n.argc() > max) {
      error(
          n,
          "'"
              + n.keyword()
              + "' takes at most "
              + max
              + " argument"
              + (max == 1 ? "" : "s")
              + ", extra: '"
              + n.arg(max + 1)
              + "'");
      return false;
    }
    return true;
  }

  /** Checks that the keyword opened a block. */
  boolean block(Node n) {
    if (!n.hasBlock()) {
      error(n, "'" + n.keyword() + "' needs a { } block");
      return false;
    }
    return true;
  }

  static final long UINT32_MAX = 0xffffffffL;
  static final long INT32_MAX = Integer.MAX_VALUE;

  static Location loc(Node n) {
    return new Location(n.line.file(), n.line.line());
  }

  /** Reports an unknown keyword, suggesting the closest known one. */
  void unknown(Node n, Set<String> known, String where) {
    Optional<String> s = Keywords.suggest(n.keyword(), known);
    error(
        n,
        "unknown keyword '"
            + n.keyword()
            + "' in "
            + where
            + s.map(x -> " (did you mean '" + x + "'?)").orElse(""));
  }

  @Nullable Long signed(Node n, int i, long min, long max, String what) {
    if (i > n.argc()) {
      error(n, n.keyword() + ": missing " + what);
      return null;
    }
    Long x = parseLong(n.arg(i));
    if (x == null) {
      error(n, n.keyword() + ": " + what + " '" + n.arg(i) + "' is not an integer");
      return null;
    }
    if (x < min || x > max) {
      error(n, n.keyword() + ": " + what + " " + x + " is out of range " + min + ".." + max);
      return null;
    }
    return x;
  }

  @Nullable AddressFamily family(Node n, String s) {
    switch (s) {
      case "inet" -> {
        return AddressFamily.INET;
      }
      case "inet6" -> {
        return AddressFamily.INET6;
      }
      default -> {
        error(n, "'" + s + "' is not an address family (inet or inet6)");
        return null;
      }
    }
  }

  @Nullable Script script(Node c) {
    if (c.hasBlock()) {
      error(c, "'" + c.keyword() + "' does not take a { } block");
      return null;
    }
    List<String> words = Tokenizer.quotedWords(c.line.text());
    if (words.size() < 2) {
      error(c, c.keyword() + " needs a command");
      return null;
    }
    if (words.size() > 4) {
      error(
          c,
          c.keyword()
              + ": after the command only 'user [group]' may follow; quote the "
              + "command if it has arguments");
      return null;
    }
    String cmd = words.get(1);
    List<String> argv = Tokenizer.argv(cmd);
    if (argv.isEmpty()) {
      error(c, c.keyword() + " needs a command");
      return null;
    }
    return new Script(
        cmd,
        argv,
        words.size() > 2 ? Optional.of(words.get(2)) : Optional.empty(),
        words.size() > 3 ? Optional.of(words.get(3)) : Optional.empty());
  }
}
