package io.fairway.config;

import io.fairway.config.model.GroupEntry;
import io.fairway.config.model.VirtualServerGroup;
import io.fairway.table.AddressFamily;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code virtual_server_group NAME { ... }}: addresses, ranges ({@code 10.0.0.1-10}, {@code
 * 10.0.0.0/30}, {@code fd00::1-ff}) and fwmarks, as keepalived's alloc_vsg_entry reads them.
 */
final class GroupParser {
  private final Values v;
  private final Map<String, VirtualServerGroup> groups;

  GroupParser(Values v, Map<String, VirtualServerGroup> groups) {
    this.v = v;
    this.groups = groups;
  }

  void group(Node n) {
    if (n.argc() != 1) {
      v.error(n, "virtual_server_group needs exactly one name");
      return;
    }
    if (!v.block(n)) {
      return;
    }
    List<GroupEntry> entries = new ArrayList<>();
    for (Node e : n.block()) {
      if (e.hasBlock()) {
        v.error(e, "virtual_server_group entries do not take a { } block");
        continue;
      }
      GroupEntry g = groupEntry(e);
      if (g != null) {
        entries.add(g);
      }
    }
    if (entries.isEmpty()) {
      v.error(n, "virtual_server_group " + n.arg(1) + " is empty");
      return;
    }
    boolean v4 = false;
    boolean v6 = false;
    for (GroupEntry g : entries) {
      if (g instanceof GroupEntry.AddressRange r) {
        v4 |= r.first() instanceof Inet4Address;
        v6 |= r.first() instanceof Inet6Address;
      }
    }
    if (v4 && v6) {
      for (Node e : n.block()) {
        if (e.keyword().equals("fwmark") && e.argc() == 1) {
          v.error(
              e,
              "virtual_server_group "
                  + n.arg(1)
                  + " has IPv4 and IPv6 addresses, so its "
                  + "fwmark needs a family (inet or inet6), as keepalived requires");
        }
      }
    }
    if (groups.containsKey(n.arg(1))) {
      v.error(n, "duplicate virtual_server_group '" + n.arg(1) + "'");
      return;
    }
    groups.put(n.arg(1), new VirtualServerGroup(Values.loc(n), n.arg(1), entries));
  }

  private @Nullable GroupEntry groupEntry(Node e) {
    List<String> w = e.words;
    if (w.get(0).equals("fwmark")) {
      return fwmark(e);
    }
    if (w.size() > 2) {
      v.error(e, "expected 'IP[-LAST] [PORT]' or 'IP/PREFIX [PORT]'; extra '" + w.get(2) + "'");
      return null;
    }
    int port = 0;
    if (w.size() == 2) {
      Long p = Values.parseLong(w.get(1));
      if (p == null || p < 0 || p > 65535) {
        v.error(e, "virtual_server_group: port '" + w.get(1) + "' is not 0..65535");
        return null;
      }
      port = p.intValue();
    }
    String spec = w.get(0);
    if (spec.indexOf('/') >= 0 || spec.indexOf('-') >= 0) {
      return range(e, spec, port);
    }
    InetAddress a = Values.address(spec);
    if (a == null) {
      v.error(e, "virtual_server_group: '" + spec + "' is not an address, range or 'fwmark N'");
      return null;
    }
    return new GroupEntry.AddressRange(a, a, port);
  }

  /** {@code fwmark N [inet|inet6]}. */
  private @Nullable GroupEntry fwmark(Node e) {
    List<String> w = e.words;
    if (w.size() < 2 || w.size() > 3) {
      v.error(e, "expected 'fwmark N [inet|inet6]'");
      return null;
    }
    Long mark = v.number(e, 1, 1, Values.UINT32_MAX, "fwmark");
    AddressFamily af = AddressFamily.INET;
    if (w.size() == 3) {
      af = v.family(e, w.get(2));
    }
    return mark == null || af == null ? null : new GroupEntry.Fwmark(mark, af);
  }

  /** {@code IP/PREFIX} or {@code IP-LAST} (a prefix when the spec has both). */
  private @Nullable GroupEntry range(Node e, String spec, int port) {
    try {
      int slash = spec.indexOf('/');
      return slash >= 0 ? prefix(e, spec, slash, port) : dashRange(e, spec, port);
    } catch (java.net.UnknownHostException | ArithmeticException ex) {
      v.error(e, "virtual_server_group: bad address '" + spec + "'");
      return null;
    }
  }

  private @Nullable GroupEntry prefix(Node e, String spec, int slash, int port)
      throws java.net.UnknownHostException {
    InetAddress base = Values.address(spec.substring(0, slash));
    Long plen = Values.parseLong(spec.substring(slash + 1));
    int bits = base == null ? 0 : base.getAddress().length * 8;
    if (base == null || plen == null || plen < 0 || plen > bits) {
      v.error(e, "virtual_server_group: '" + spec + "' is not ADDRESS/PREFIX");
      return null;
    }
    byte[] a = base.getAddress();
    byte[] last = a.clone();
    for (int b = plen.intValue(); b < bits; b++) {
      if ((a[b / 8] & (0x80 >> (b % 8))) != 0) {
        v.error(e, "virtual_server_group: '" + spec + "' has host bits set");
        return null;
      }
      last[b / 8] |= (byte) (0x80 >> (b % 8));
    }
    return new GroupEntry.AddressRange(base, InetAddress.getByAddress(last), port);
  }

  private @Nullable GroupEntry dashRange(Node e, String spec, int port)
      throws java.net.UnknownHostException {
    int dash = spec.indexOf('-');
    InetAddress first = Values.address(spec.substring(0, dash));
    String end = spec.substring(dash + 1);
    if (first == null) {
      v.error(e, "virtual_server_group: '" + spec.substring(0, dash) + "' is not an address");
      return null;
    }
    InetAddress last = Values.address(end);
    if (last == null) {
      last = rangeEnd(e, first, end);
      if (last == null) {
        return null;
      }
    } else if (last.getClass() != first.getClass()) {
      v.error(e, "virtual_server_group: range mixes IPv4 and IPv6");
      return null;
    }
    GroupEntry.AddressRange r = new GroupEntry.AddressRange(first, last, port);
    if (new java.math.BigInteger(1, last.getAddress())
            .compareTo(new java.math.BigInteger(1, first.getAddress()))
        < 0) {
      v.error(e, "virtual_server_group: range '" + spec + "' ends before it starts");
      return null;
    }
    if (r.size() > 65536) {
      v.error(e, "virtual_server_group: range '" + spec + "' is larger than 65536 addresses");
      return null;
    }
    return r;
  }

  /**
   * A range's short end, keepalived's last octet (IPv4) or last hex group (IPv6) replacing the
   * first address's; null after reporting.
   */
  private @Nullable InetAddress rangeEnd(Node e, InetAddress first, String end)
      throws java.net.UnknownHostException {
    byte[] b = first.getAddress();
    if (first instanceof Inet4Address) {
      Long o = Values.parseLong(end);
      if (o == null || o < 0 || o > 255 || end.startsWith("0x")) {
        v.error(e, "virtual_server_group: range end '" + end + "' is not 0..255");
        return null;
      }
      b[3] = (byte) o.intValue();
    } else {
      if (!end.matches("[0-9A-Fa-f]{1,4}")) {
        v.error(e, "virtual_server_group: range end '" + end + "' is not a hex group");
        return null;
      }
      int o = Integer.parseInt(end, 16);
      b[14] = (byte) (o >> 8);
      b[15] = (byte) o;
    }
    return InetAddress.getByAddress(b);
  }
}
