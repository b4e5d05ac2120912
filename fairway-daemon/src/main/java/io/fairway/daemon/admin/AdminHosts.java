package io.fairway.daemon.admin;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Which {@code Host} headers the admin listener answers: the address the client connected to (an IP
 * literal), {@code localhost}, and the names given with {@code --admin-host}.
 *
 * <p>Why: DNS rebinding. A page the operator visits can point its own name at 127.0.0.1; the
 * browser then treats the admin listener as that page's origin and lets its script read the
 * answers. The browser still sends the page's name as {@code Host}, so refusing names nobody
 * configured closes that door without any credential on reads.
 */
public final class AdminHosts {
  /** A DNS name: labels of letters, digits and hyphens. */
  private static final Pattern NAME =
      Pattern.compile(
          "(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\\.?");

  private static final int MAX_NAME = 253;

  /** Only the listener's own address and {@code localhost}. */
  public static final AdminHosts DEFAULT = new AdminHosts(Set.of());

  private final Set<String> names;

  private AdminHosts(Set<String> names) {
    this.names = names;
  }

  /**
   * The default hosts plus {@code names}.
   *
   * @throws IllegalArgumentException a name that is not a DNS name or IP address (the message names
   *     it)
   */
  public static AdminHosts of(Collection<String> names) {
    List<String> all = new ArrayList<>();
    for (String n : names) {
      String h = n.strip();
      if (h.length() > MAX_NAME || !(NAME.matcher(h).matches() || isIpLiteral(h))) {
        throw new IllegalArgumentException(
            "'" + n + "' is not a host name or IP address (give the name clients use, no port)");
      }
      all.add(canonical(h));
    }
    return new AdminHosts(Set.copyOf(all));
  }

  /** The names given beyond the default ones. */
  public Set<String> names() {
    return names;
  }

  /**
   * Whether a request's {@code Host} header names this listener.
   *
   * @param host the header's value (null: none sent)
   * @param local the address the client connected to
   */
  public boolean accepts(String host, InetSocketAddress local) {
    String h = hostPart(host);
    if (h == null) {
      return false;
    }
    if (h.equals("localhost") || names.contains(h)) {
      return true;
    }
    if (!isIpLiteral(h) || local == null || local.getAddress() == null) {
      return false;
    }
    byte[] given = NetUtil.createByteArrayFromIpAddressString(h);
    InetAddress mine = local.getAddress();
    if (given == null) {
      return false;
    }
    byte[] own = mine.getAddress();
    if (java.util.Arrays.equals(given, own)) {
      return true;
    }
    // An IPv4 client on a dual-stack socket connects to ::ffff:a.b.c.d but names a.b.c.d.
    return own.length == 16
        && given.length == 4
        && NetUtil.isValidIpV4Address(h)
        && mapped(own, given);
  }

  /**
   * The host of a {@code Host} header, lower-case, without port, brackets or a trailing dot; null
   * when it is not one host.
   */
  static @Nullable String hostPart(@Nullable String header) {
    if (header == null) {
      return null;
    }
    String h = header.strip();
    if (h.isEmpty() || h.length() > MAX_NAME + 8) {
      return null;
    }
    if (h.startsWith("[")) {
      int end = h.indexOf(']');
      if (end < 0 || !(end == h.length() - 1 || port(h.substring(end + 1)))) {
        return null;
      }
      String v6 = h.substring(1, end);
      return NetUtil.isValidIpV6Address(v6) ? canonical(v6) : null;
    }
    int colon = h.indexOf(':');
    if (colon >= 0) {
      if (!port(h.substring(colon))) {
        return null;
      }
      h = h.substring(0, colon);
    }
    return NAME.matcher(h).matches() || NetUtil.isValidIpV4Address(h) ? canonical(h) : null;
  }

  private static boolean port(String s) {
    return s.length() >= 2
        && s.length() <= 6
        && s.charAt(0) == ':'
        && s.substring(1).chars().allMatch(Character::isDigit);
  }

  private static boolean isIpLiteral(String h) {
    return NetUtil.isValidIpV4Address(h) || NetUtil.isValidIpV6Address(h);
  }

  private static String canonical(String h) {
    String l = h.toLowerCase(Locale.ROOT);
    return l.endsWith(".") ? l.substring(0, l.length() - 1) : l;
  }

  private static boolean mapped(byte[] v6, byte[] v4) {
    for (int i = 0; i < 10; i++) {
      if (v6[i] != 0) {
        return false;
      }
    }
    return v6[10] == (byte) 0xff
        && v6[11] == (byte) 0xff
        && java.util.Arrays.equals(v6, 12, 16, v4, 0, 4);
  }
}
