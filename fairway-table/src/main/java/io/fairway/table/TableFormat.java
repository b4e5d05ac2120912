package io.fairway.table;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Renders a table the way {@code ipvsadm} does, so operators see the output they know and tests can
 * compare Fairway's table with a real one line by line.
 *
 * <ul>
 *   <li>{@link #list} is {@code ipvsadm -Ln}: header lines, one line per service with scheduler and
 *       flags, one {@code ->} line per destination with forwarding, weight and connections.
 *   <li>{@link #save} is {@code ipvsadm -Sn}: the {@code -A}/{@code -a} commands that recreate the
 *       table (like ipvsadm, without thresholds, which its save format does not carry).
 * </ul>
 *
 * <p>Services and destinations are sorted with ipvsadm's own comparison (fwmark, family, protocol,
 * then address and port compared as ipvsadm compares them, wrap-around included), so the output is
 * byte-identical to ipvsadm's for the same table.
 */
public final class TableFormat {
  private TableFormat() {}

  /** The first line ipvsadm prints for the kernel of this project's CI (IPVS 1.2.1). */
  public static final String DEFAULT_HEADER = "IP Virtual Server version 1.2.1 (size=4096)";

  /** {@code ipvsadm -Ln} with {@link #DEFAULT_HEADER}. */
  public static String list(List<ServiceEntry> table) {
    return list(table, DEFAULT_HEADER, (s, d) -> "");
  }

  /**
   * {@code ipvsadm -Ln}, with a custom first line (e.g. from the kernel's GET_INFO) and a suffix
   * appended to each destination line (e.g. a health verdict and its reason for {@code fairway
   * status}; return "" for none).
   */
  public static String list(
      List<ServiceEntry> table,
      String header,
      BiFunction<ServiceKey, DestEntry, String> destSuffix) {
    StringBuilder sb = new StringBuilder();
    sb.append(header).append('\n');
    sb.append("Prot LocalAddress:Port Scheduler Flags\n");
    sb.append("  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn\n");
    for (ServiceEntry e : sorted(table)) {
      Service s = e.service();
      sb.append(serviceName(s.key())).append(' ').append(s.scheduler());
      String schedFlags = schedFlags(s);
      if (!schedFlags.isEmpty()) {
        sb.append(" (").append(schedFlags).append(')');
      }
      if (s.flags().contains(ServiceFlag.PERSISTENT)) {
        sb.append(" persistent ").append(s.timeout());
        String mask = mask(s);
        if (!mask.isEmpty()) {
          sb.append(" mask ").append(mask);
        }
        if (s.persistenceEngine() != null) {
          sb.append(" pe ").append(s.persistenceEngine());
        }
      }
      if (s.flags().contains(ServiceFlag.ONE_PACKET)) {
        sb.append(" ops");
      }
      sb.append('\n');
      for (DestEntry d : sortedDests(e.dests())) {
        Dest dest = d.dest();
        sb.append(
            String.format(
                "  -> %-28s %-7s %-6d %-10d %-10d",
                Endpoints.format(dest.address(), dest.port()),
                dest.forwarding().ipvsadmName(),
                dest.weight(),
                d.activeConnections(),
                d.inactiveConnections()));
        sb.append(destSuffix.apply(s.key(), d)).append('\n');
      }
    }
    return sb.toString();
  }

  /** {@code ipvsadm -Sn}: one {@code -A} line per service, then its {@code -a} lines. */
  public static String save(List<ServiceEntry> table) {
    StringBuilder sb = new StringBuilder();
    for (String line : saveLines(table)) {
      sb.append(line).append('\n');
    }
    return sb.toString();
  }

  /** The lines of {@link #save}, in ipvsadm's order. */
  public static List<String> saveLines(List<ServiceEntry> table) {
    List<String> out = new ArrayList<>();
    for (ServiceEntry e : sorted(table)) {
      Service s = e.service();
      String svc = saveService(s.key());
      StringBuilder sb = new StringBuilder("-A ").append(svc).append(" -s ").append(s.scheduler());
      if (s.flags().contains(ServiceFlag.PERSISTENT)) {
        sb.append(" -p ").append(s.timeout());
        String mask = mask(s);
        if (!mask.isEmpty()) {
          sb.append(" -M ").append(mask);
        }
        if (s.persistenceEngine() != null) {
          sb.append(" --pe ").append(s.persistenceEngine());
        }
      }
      if (s.flags().contains(ServiceFlag.ONE_PACKET)) {
        sb.append(" -o");
      }
      String schedFlags = schedFlags(s);
      if (!schedFlags.isEmpty()) {
        sb.append(" -b ").append(schedFlags);
      }
      out.add(sb.toString());
      for (DestEntry d : sortedDests(e.dests())) {
        Dest dest = d.dest();
        StringBuilder a =
            new StringBuilder("-a ")
                .append(svc)
                .append(" -r ")
                .append(Endpoints.format(dest.address(), dest.port()))
                .append(' ')
                .append(forwardSwitch(dest.forwarding()))
                .append(" -w ")
                .append(dest.weight());
        if (dest.forwarding() == ForwardingMethod.TUNNEL) {
          Tunnel t = dest.tunnel() == null ? Tunnel.IPIP : dest.tunnel();
          a.append(" --tun-type ").append(t.type().name().toLowerCase(java.util.Locale.ROOT));
          if (t.type() == Tunnel.Type.GUE) {
            a.append(" --tun-port ").append(t.port());
          }
          if (t.type() != Tunnel.Type.IPIP) {
            a.append(
                switch (t.checksum()) {
                  case NOCSUM -> " --tun-nocsum";
                  case CSUM -> " --tun-csum";
                  case REMCSUM -> " --tun-remcsum";
                });
          }
        }
        out.add(a.toString());
      }
    }
    return out;
  }

  /** {@code TCP 10.0.0.1:80}, {@code SCTP 10.0.0.1:9}, {@code FWM 7}, {@code FWM 8 IPv6}. */
  static String serviceName(ServiceKey k) {
    if (k.isFwmark()) {
      return String.format("%-4s %d", "FWM", k.fwmark())
          + (k.family() == AddressFamily.INET6 ? " IPv6" : "");
    }
    return String.format("%-4s %s", protocol(k).name(), Endpoints.format(address(k), k.port()));
  }

  private static String saveService(ServiceKey k) {
    if (k.isFwmark()) {
      return "-f " + k.fwmark() + (k.family() == AddressFamily.INET6 ? " -6" : "");
    }
    String flag =
        switch (protocol(k)) {
          case TCP -> "-t";
          case UDP -> "-u";
          case SCTP -> "--sctp-service";
        };
    return flag + " " + Endpoints.format(address(k), k.port());
  }

  /** The protocol of a service that is not a fwmark one, which its key's constructor required. */
  private static Protocol protocol(ServiceKey k) {
    return Objects.requireNonNull(k.protocol(), "protocol");
  }

  /** The address of a service that is not a fwmark one, which its key's constructor required. */
  private static InetAddress address(ServiceKey k) {
    return Objects.requireNonNull(k.address(), "address");
  }

  private static String forwardSwitch(ForwardingMethod m) {
    return switch (m) {
      case MASQ -> "-m";
      case TUNNEL -> "-i";
      case DROUTE, LOCALNODE -> "-g";
      case BYPASS -> "-?";
    };
  }

  /** The persistence mask as ipvsadm shows it, or "" when it is the per-address default. */
  private static String mask(Service s) {
    if (s.key().family() == AddressFamily.INET6) {
      return s.netmask() == 128 ? "" : Integer.toString(s.netmask());
    }
    if (s.netmask() == 32) {
      return "";
    }
    int m = s.netmask() == 0 ? 0 : (int) (0xffffffffL << (32 - s.netmask()));
    return ((m >>> 24) & 0xff)
        + "."
        + ((m >>> 16) & 0xff)
        + "."
        + ((m >>> 8) & 0xff)
        + "."
        + (m & 0xff);
  }

  /** Scheduler flags by the names ipvsadm uses for this scheduler. */
  private static String schedFlags(Service s) {
    Set<ServiceFlag> f = s.flags();
    List<String> names = new ArrayList<>();
    boolean named = s.scheduler().equals("sh") || s.scheduler().equals("mh");
    if (f.contains(ServiceFlag.SCHED1)) {
      names.add(named ? s.scheduler() + "-fallback" : "flag-1");
    }
    if (f.contains(ServiceFlag.SCHED2)) {
      names.add(named ? s.scheduler() + "-port" : "flag-2");
    }
    if (f.contains(ServiceFlag.SCHED3)) {
      names.add("flag-3");
    }
    return String.join(",", names);
  }

  /** Services in ipvsadm's order ({@code ipvs_cmp_services}). */
  public static List<ServiceEntry> sorted(List<ServiceEntry> table) {
    return sort(table, TableFormat::compareServices);
  }

  /** Destinations in ipvsadm's order ({@code ipvs_cmp_dests}). */
  public static List<DestEntry> sortedDests(List<DestEntry> dests) {
    return sort(
        dests,
        (a, b) ->
            compareAddrPort(
                a.dest().address(), a.dest().port(), b.dest().address(), b.dest().port()));
  }

  private static int compareServices(ServiceEntry x, ServiceEntry y) {
    ServiceKey a = x.service().key();
    ServiceKey b = y.service().key();
    int r = a.fwmark() - b.fwmark();
    if (r != 0) {
      return r;
    }
    r = a.family().number() - b.family().number();
    if (r != 0) {
      return r;
    }
    r = (a.isFwmark() ? 6 : protocol(a).number()) - (b.isFwmark() ? 6 : protocol(b).number());
    if (r != 0 || a.isFwmark()) {
      return r;
    }
    return compareAddrPort(address(a), a.port(), address(b), b.port());
  }

  /**
   * ipvsadm compares addresses as 32-bit words subtracted in C {@code int}, which wraps; the first
   * argument's family decides how many words. Reproduced as is, so the order matches.
   */
  private static int compareAddrPort(InetAddress a, int pa, InetAddress b, int pb) {
    byte[] x = java.util.Arrays.copyOf(a.getAddress(), 16);
    byte[] y = java.util.Arrays.copyOf(b.getAddress(), 16);
    int words = a instanceof Inet6Address ? 4 : 1;
    int r = 0;
    for (int i = 0; r == 0 && i < words; i++) {
      r = word(x, i) - word(y, i);
    }
    return r != 0 ? r : pa - pb;
  }

  private static int word(byte[] b, int i) {
    return ((b[4 * i] & 0xff) << 24)
        | ((b[4 * i + 1] & 0xff) << 16)
        | ((b[4 * i + 2] & 0xff) << 8)
        | (b[4 * i + 3] & 0xff);
  }

  private static <T> List<T> sort(List<T> in, Comparator<T> c) {
    List<T> out = new ArrayList<>(in);
    try {
      out.sort(c);
    } catch (IllegalArgumentException inconsistent) {
      // The wrapping comparison is not transitive for far-apart addresses; a plain stable
      // insertion sort still gives a deterministic order where TimSort gives up.
      out = new ArrayList<>(in);
      for (int i = 1; i < out.size(); i++) {
        T t = out.get(i);
        int j = i - 1;
        while (j >= 0 && c.compare(out.get(j), t) > 0) {
          out.set(j + 1, out.get(j));
          j--;
        }
        out.set(j + 1, t);
      }
    }
    return out;
  }
}
