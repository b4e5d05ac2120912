package io.fairway.config;

import io.fairway.config.model.base.Location;
import io.fairway.config.model.base.Script;
import io.fairway.config.model.vrrp.Notify;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VirtualAddress;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Values that several VRRP blocks write the same way (timers in seconds, notify scripts, track
 * lists, virtual addresses, authentication), so an instance and a sync group cannot come to read
 * one spelling two ways.
 */
final class VrrpValues {
  final Values v;

  VrrpValues(Values v) {
    this.v = v;
  }

  @Nullable Duration seconds(Node n, long min, long max) {
    Duration d = v.timer(n, 1, true);
    if (d == null) {
      return null;
    }
    if (d.compareTo(Duration.ofSeconds(min)) < 0 || d.compareTo(Duration.ofSeconds(max)) > 0) {
      v.error(
          n, n.keyword() + ": " + n.arg(1) + " is out of range " + min + ".." + max + " seconds");
      return null;
    }
    return d;
  }

  // --- vrrp_script -----------------------------------------------------------------------------

  static Node lineOf(Node parent, Location at) {
    for (Node c : parent.block()) {
      if (c.children != null) {
        for (Node a : c.block()) {
          if (a.line.line() == at.line() && a.line.file().equals(at.file())) {
            return a;
          }
        }
      }
    }
    return parent;
  }

  Optional<String> authentication(Node c) {
    String type = null;
    String pass = null;
    for (Node a : c.block()) {
      switch (a.keyword()) {
        case "auth_type" -> {
          if (v.args(a, 1, 1)) {
            if (a.arg(1).equals("PASS")) {
              type = "PASS";
            } else if (a.arg(1).equals("AH")) {
              v.error(
                  a,
                  "auth_type AH is not supported: RFC 3768 removed IPsec AH from VRRP "
                      + "and Fairway does not implement it; use auth_type PASS or no authentication");
            } else {
              v.error(a, "auth_type must be PASS, not '" + a.arg(1) + "'");
            }
          }
        }
        case "auth_pass" -> {
          if (v.args(a, 1, 1)) {
            pass = a.arg(1);
            if (pass.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 8) {
              v.warn(
                  a,
                  "auth_pass is longer than 8 bytes; keepalived (and Fairway) use the "
                      + "first 8");
              pass =
                  new String(
                      java.util.Arrays.copyOf(
                          pass.getBytes(java.nio.charset.StandardCharsets.UTF_8), 8),
                      java.nio.charset.StandardCharsets.UTF_8);
            }
          }
        }
        default -> v.unknown(a, Set.of("auth_type", "auth_pass"), "authentication");
      }
    }
    if ("PASS".equals(type) && pass == null) {
      v.error(c, "auth_type PASS needs an auth_pass");
    }
    return "PASS".equals(type) && pass != null ? Optional.of(pass) : Optional.empty();
  }

  @Nullable VirtualAddress virtualAddress(Node a) {
    if (a.hasBlock()) {
      v.error(a, "a virtual address does not take a { } block");
      return null;
    }
    String word = a.keyword();
    int slash = word.indexOf('/');
    InetAddress addr = Values.address(slash < 0 ? word : word.substring(0, slash));
    if (addr == null) {
      v.error(
          a,
          "'" + (slash < 0 ? word : word.substring(0, slash)) + "' is not an IPv4 or IPv6 address");
      return null;
    }
    Integer prefix = prefix(a, addr, slash < 0 ? null : word.substring(slash + 1));
    if (prefix == null) {
      return null;
    }
    AddressOptions o = new AddressOptions();
    for (int i = 1; i <= a.argc(); i++) {
      i = o.option(a, i, addr, v);
      if (i < 0) {
        return null;
      }
    }
    return new VirtualAddress(Values.loc(a), addr, prefix, o.dev, o.label, o.scope, o.noTrack);
  }

  /** A virtual address's options ({@code dev}, {@code label}, {@code scope}, {@code no_track}). */
  private static final class AddressOptions {
    Optional<String> dev = Optional.empty();
    Optional<String> label = Optional.empty();
    int scope;
    boolean noTrack;

    /** Reads the option at word {@code i}; the index of its last word, -1 after reporting. */
    int option(Node a, int i, InetAddress addr, Values v) {
      String opt = a.arg(i);
      switch (opt) {
        case "dev", "label", "scope" -> {
          if (i == a.argc()) {
            v.error(a, "'" + opt + "' needs a value");
            return -1;
          }
          return valued(a, opt, a.arg(i + 1), addr, v) ? i + 1 : -1;
        }
        case "no_track" -> {
          noTrack = true;
          return i;
        }
        default -> {
          v.error(
              a,
              "virtual address option '"
                  + opt
                  + "' is not supported (dev, label, "
                  + "scope and no_track are)");
          return -1;
        }
      }
    }

    private boolean valued(Node a, String opt, String val, InetAddress addr, Values v) {
      if (opt.equals("dev")) {
        dev = Optional.of(val);
      } else if (opt.equals("label")) {
        if (!(addr instanceof Inet4Address)) {
          v.error(a, "label applies to IPv4 addresses only");
          return false;
        }
        label = Optional.of(val);
      } else {
        Integer s = scope(val);
        if (s == null) {
          v.error(
              a, "scope must be global, site, link, host, nowhere or 0..255, not '" + val + "'");
          return false;
        }
        scope = s;
      }
      return true;
    }
  }

  /** The prefix length written after the slash, else the whole address; null when refused. */
  private @Nullable Integer prefix(Node a, InetAddress addr, @Nullable String written) {
    int max = addr instanceof Inet4Address ? 32 : 128;
    if (written == null) {
      return max;
    }
    Long p = Values.parseLong(written);
    if (p == null || p < 0 || p > max || !written.matches("\\d+")) {
      v.error(a, "prefix '" + written + "' must be 0.." + max);
      return null;
    }
    return p.intValue();
  }

  private static @Nullable Integer scope(String s) {
    switch (s) {
      case "global", "universe" -> {
        return 0;
      }
      case "site" -> {
        return 200;
      }
      case "link" -> {
        return 253;
      }
      case "host" -> {
        return 254;
      }
      case "nowhere" -> {
        return 255;
      }
      default -> {
        Long x = Values.parseLong(s);
        return x != null && x >= 0 && x <= 255 ? x.intValue() : null;
      }
    }
  }

  void notifyScript(Node c, Map<String, Script> into) {
    Script s = v.script(c);
    if (s == null) {
      return;
    }
    if (into.containsKey(c.keyword())) {
      v.error(c, c.keyword() + " is given twice");
      return;
    }
    into.put(c.keyword(), s);
  }

  /** {@code track_X { NAME [weight N [reverse]] ... }}. */
  void tracks(Node c, List<Track> into, String what) {
    if (!v.block(c)) {
      return;
    }
    for (Node t : c.block()) {
      if (t.hasBlock()) {
        v.error(t, what + ": an entry does not take a { } block");
        continue;
      }
      Optional<Integer> weight = Optional.empty();
      boolean reverse = false;
      if (t.argc() > 0) {
        if (!t.arg(1).equals("weight") || t.argc() < 2 || t.argc() > 3) {
          v.error(t, what + ": expected 'NAME [weight N [reverse]]'");
          continue;
        }
        Long w = v.signed(t, 2, -254, 254, "weight");
        if (w == null) {
          continue;
        }
        weight = Optional.of(w.intValue());
        if (t.argc() == 3) {
          if (!t.arg(3).equals("reverse")) {
            v.error(t, what + ": expected 'reverse' after the weight, got '" + t.arg(3) + "'");
            continue;
          }
          reverse = true;
        }
      }
      into.add(new Track(t.keyword(), weight, reverse));
    }
  }

  // --- vrrp_sync_group -------------------------------------------------------------------------

  /** The notify scripts collected by {@link #notifyScript}, as the model holds them. */
  static Notify notify(Map<String, Script> notify) {
    return new Notify(
        Optional.ofNullable(notify.get("notify_master")),
        Optional.ofNullable(notify.get("notify_backup")),
        Optional.ofNullable(notify.get("notify_fault")),
        Optional.ofNullable(notify.get("notify_stop")),
        Optional.ofNullable(notify.get("notify")));
  }

  /**
   * The sync daemon's interface name as keepalived checks it (shorter than IP_VS_IFNAME_MAXLEN).
   */
  boolean syncInterface(Node n, int i) {
    if (n.arg(i).getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 15) {
      v.error(
          n, n.keyword() + ": interface name '" + n.arg(i) + "' is longer than 15 " + "characters");
      return false;
    }
    return true;
  }
}
