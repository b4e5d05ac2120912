package io.fairway.config;

import io.fairway.config.model.AddressFamily;
import io.fairway.config.model.Addresses;
import io.fairway.config.model.BfdCheck;
import io.fairway.config.model.Checker;
import io.fairway.config.model.CheckerTiming;
import io.fairway.config.model.Config;
import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.DnsCheck;
import io.fairway.config.model.Endpoint;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.ForwardingMethod;
import io.fairway.config.model.GlobalDefs;
import io.fairway.config.model.GroupEntry;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.Location;
import io.fairway.config.model.MiscCheck;
import io.fairway.config.model.PingCheck;
import io.fairway.config.model.Protocol;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.RealServerId;
import io.fairway.config.model.Scheduler;
import io.fairway.config.model.SchedulerFlag;
import io.fairway.config.model.Script;
import io.fairway.config.model.SmtpCheck;
import io.fairway.config.model.SorryServer;
import io.fairway.config.model.SslContext;
import io.fairway.config.model.StatusRange;
import io.fairway.config.model.TcpCheck;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.UdpCheck;
import io.fairway.config.model.UrlCheck;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerGroup;
import io.fairway.config.model.VirtualServerId;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Gives the block tree its meaning: keyword tables per level, keepalived's defaults, inheritance
 * and load-time adjustments, and Fairway's extensions and stricter checks.
 */
final class ModelBuilder {
  static final long UINT32_MAX = 0xffffffffL;
  static final long INT32_MAX = Integer.MAX_VALUE;
  static final Duration DEFAULT_DELAY_LOOP = Duration.ofSeconds(60);
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration DEFAULT_PERSISTENCE = Duration.ofSeconds(360);
  static final long MAX_PERSISTENCE_SECONDS = 31L * 24 * 3600;

  static final Set<String> TOP = Set.of("global_defs", "virtual_server", "virtual_server_group",
      "track_file", "vrrp_track_file", "SSL");
  static final Set<String> GLOBAL = Set.of("router_id", "notification_email",
      "notification_email_from", "smtp_server", "smtp_connect_timeout", "smtp_alert", "lvs_flush",
      "lvs_flush_on_stop", "lvs_timeouts", "checker_log_all_failures", "rs_init_notifies",
      "no_checker_emails", "script_user", "enable_script_security");
  static final Set<String> TIMING = Set.of("delay_loop", "connect_timeout", "retry",
      "delay_before_retry", "warmup", "alpha");
  static final Set<String> VS = union(TIMING, Set.of("lb_algo", "lvs_sched", "lb_kind", "lvs_method",
      "persistence_timeout", "persistence_granularity", "persistence_engine", "protocol", "ops",
      "flag-1", "flag-2", "flag-3", "sh-port", "sh-fallback", "mh-port", "mh-fallback", "hashed",
      "ip_family", "inhibit_on_failure", "omega", "quorum", "hysteresis", "quorum_up",
      "quorum_down", "weight", "sorry_server", "sorry_server_inhibit", "sorry_server_lvs_method",
      "ha_suspend", "virtualhost", "smtp_alert", "snmp_name", "real_server", "name", "shard",
      "fallback", "hash", "hash_balance_factor", "quorum_max"));
  static final Set<String> CHECKERS = Set.of("TCP_CHECK", "HTTP_GET", "SSL_GET", "MISC_CHECK",
      "DNS_CHECK", "SMTP_CHECK", "UDP_CHECK", "PING_CHECK", "FILE_CHECK", "BFD_CHECK");
  static final Set<String> RS = union(union(TIMING, CHECKERS), Set.of("weight", "lvs_method",
      "uthreshold", "lthreshold", "inhibit_on_failure", "notify_up", "notify_down", "smtp_alert",
      "virtualhost", "snmp_name", "name", "ident"));
  static final Set<String> ENDPOINT = Set.of("connect_ip", "connect_port", "bindto", "bind_port",
      "bind_if", "fwmark");
  static final Set<String> CHECKER_COMMON = union(TIMING, Set.of("log_all_failures",
      "nb_get_retry"));
  static final Set<String> URL = Set.of("path", "digest", "status_code", "virtualhost", "regex",
      "regex_no_match", "regex_options", "regex_min_offset", "regex_max_offset", "regex_stack");
  static final Set<String> DNS_TYPES = Set.of("A", "NS", "CNAME", "SOA", "MX", "TXT", "AAAA",
      "RRSIG", "DNSKEY");

  private final Diagnostics diags;
  private final Values v;
  private GlobalDefs globals = GlobalDefs.defaults();
  private final Map<String, VirtualServerGroup> groups = new LinkedHashMap<>();
  private final Map<String, TrackFile> trackFiles = new LinkedHashMap<>();

  ModelBuilder(Diagnostics diags) {
    this.diags = diags;
    this.v = new Values(diags);
  }

  @SafeVarargs
  private static <T> Set<T> union(Set<T>... sets) {
    Set<T> all = new HashSet<>();
    for (Set<T> s : sets) {
      all.addAll(s);
    }
    return Set.copyOf(all);
  }

  private static Location loc(Node n) {
    return new Location(n.line.file(), n.line.line());
  }

  private void unknown(Node n, Set<String> known, String where) {
    Optional<String> s = Keywords.suggest(n.keyword(), known);
    v.error(n, "unknown keyword '" + n.keyword() + "' in " + where
        + s.map(x -> " (did you mean '" + x + "'?)").orElse(""));
  }

  Config build(List<Node> top) {
    List<Node> vsNodes = new ArrayList<>();
    Optional<SslContext> ssl = Optional.empty();
    boolean sawGlobal = false;
    for (Node n : top) {
      switch (n.keyword()) {
        case "global_defs":
          if (v.block(n)) {
            if (sawGlobal) {
              v.warn(n, "second global_defs block: its settings are merged into the first");
            }
            sawGlobal = true;
            globals = globalDefs(n, globals);
          }
          break;
        case "virtual_server":
          vsNodes.add(n);
          break;
        case "virtual_server_group":
          group(n);
          break;
        case "track_file":
        case "vrrp_track_file":
          trackFile(n);
          break;
        case "SSL":
          if (v.block(n)) {
            ssl = Optional.of(ssl(n));
          }
          break;
        default:
          if (Keywords.IGNORED_TOP_BLOCKS.contains(n.keyword())
              || Keywords.IGNORED_TOP_KEYWORDS.contains(n.keyword())) {
            v.warn(n, "'" + n.keyword() + "' is keepalived's VRRP/BFD/system part; Fairway ignores it");
          } else {
            unknown(n, union(TOP, Keywords.IGNORED_TOP_BLOCKS, Keywords.IGNORED_TOP_KEYWORDS),
                "the top level");
          }
      }
    }
    List<VirtualServer> servers = new ArrayList<>();
    Map<VirtualServerId, VirtualServer> byId = new HashMap<>();
    for (Node n : vsNodes) {
      VirtualServer vs = virtualServer(n);
      if (vs == null) {
        continue;
      }
      if (byId.containsKey(vs.id())) {
        v.error(n, "duplicate virtual_server " + vs.id() + " (first at "
            + byId.get(vs.id()).location() + ")");
        continue;
      }
      byId.put(vs.id(), vs);
      servers.add(vs);
    }
    servers = uniqueNames(servers);
    return new Config(globals, List.copyOf(groups.values()), servers,
        List.copyOf(trackFiles.values()), ssl);
  }

  /** Default names may clash (same IP:PORT over TCP and UDP); explicit ones must not. */
  private List<VirtualServer> uniqueNames(List<VirtualServer> servers) {
    Map<String, Integer> count = new HashMap<>();
    for (VirtualServer vs : servers) {
      count.merge(vs.name(), 1, Integer::sum);
    }
    List<VirtualServer> out = new ArrayList<>();
    Map<String, VirtualServer> seen = new HashMap<>();
    for (VirtualServer vs : servers) {
      VirtualServer r = vs;
      if (count.get(vs.name()) > 1 && vs.id() instanceof VirtualServerId.Address a
          && vs.name().equals(defaultName(a))) {
        r = withName(vs, vs.name() + "/" + a.protocol().name().toLowerCase(Locale.ROOT));
      }
      VirtualServer prev = seen.putIfAbsent(r.name(), r);
      if (prev != null) {
        diags.error(r.location().file(), r.location().line(), "duplicate virtual_server name '"
            + r.name() + "' (also used at " + prev.location() + ")", "name " + r.name());
        continue;
      }
      out.add(r);
    }
    return out;
  }

  private static VirtualServer withName(VirtualServer s, String name) {
    return new VirtualServer(s.location(), s.id(), name, s.scheduler(), s.director(),
        s.hashBalanceFactor(), s.forwarding(), s.flags(), s.persistenceTimeout(),
        s.persistenceGranularity(), s.persistenceEngine(), s.haSuspend(), s.omega(), s.quorum(),
        s.hysteresis(), s.quorumUp(), s.quorumDown(), s.sorryServer(), s.realServers());
  }

  static String defaultName(VirtualServerId.Address a) {
    return Addresses.formatWithPort(a.address(), a.port());
  }

  // --- global_defs -----------------------------------------------------------------------------

  private GlobalDefs globalDefs(Node block, GlobalDefs g) {
    Optional<String> routerId = g.routerId();
    List<String> emails = new ArrayList<>(g.notificationEmails());
    Optional<String> from = g.notificationEmailFrom();
    Optional<String> smtpServer = g.smtpServer();
    Duration smtpTimeout = g.smtpConnectTimeout();
    boolean smtpAlert = g.smtpAlert();
    boolean flush = g.lvsFlush();
    boolean flushOnStop = g.lvsFlushOnStop();
    Optional<Duration> tcp = g.lvsTimeoutTcp();
    Optional<Duration> tcpFin = g.lvsTimeoutTcpFin();
    Optional<Duration> udp = g.lvsTimeoutUdp();
    boolean logAll = g.checkerLogAllFailures();
    boolean rsInit = g.rsInitNotifies();
    boolean noEmails = g.noCheckerEmails();
    Optional<String> scriptUser = g.scriptUser();
    boolean security = g.enableScriptSecurity();
    for (Node n : block.children) {
      String k = n.keyword();
      switch (k) {
        case "router_id":
          if (v.args(n, 1, 1)) {
            routerId = Optional.of(n.arg(1));
          }
          break;
        case "notification_email":
          if (v.block(n)) {
            for (Node e : n.children) {
              emails.addAll(e.words);
            }
          }
          break;
        case "notification_email_from":
          if (v.args(n, 1, 1)) {
            from = Optional.of(n.arg(1));
          }
          break;
        case "smtp_server":
          if (v.args(n, 1, 2) && v.address(n, 1, "address") != null
              && (n.argc() < 2 || v.port(n, 2) != null)) {
            smtpServer = Optional.of(String.join(" ", n.words.subList(1, n.words.size())));
          }
          break;
        case "smtp_connect_timeout": {
          Long t = v.args(n, 1, 1) ? v.number(n, 1, 1, INT32_MAX, "seconds") : null;
          if (t != null) {
            smtpTimeout = Duration.ofSeconds(t);
          }
          break;
        }
        case "smtp_alert": {
          Boolean b = v.args(n, 0, 1) ? v.bool(n, 1) : null;
          if (b != null) {
            smtpAlert = b;
          }
          break;
        }
        case "lvs_flush":
          if (v.args(n, 0, 0)) {
            flush = true;
          }
          break;
        case "lvs_flush_on_stop":
          if (v.args(n, 0, 1)) {
            if (n.argc() == 1 && !n.arg(1).equals("VS")) {
              v.error(n, "lvs_flush_on_stop takes only 'VS'");
            }
            flushOnStop = true;
          }
          break;
        case "lvs_timeouts":
          if (v.args(n, 2, 6)) {
            for (int i = 1; i + 1 <= n.argc(); i += 2) {
              Long secs = v.number(n, i + 1, 1, 86400L * 365, n.arg(i) + " seconds");
              if (secs == null) {
                continue;
              }
              Optional<Duration> d = Optional.of(Duration.ofSeconds(secs));
              switch (n.arg(i)) {
                case "tcp": tcp = d; break;
                case "tcpfin": tcpFin = d; break;
                case "udp": udp = d; break;
                default: v.error(n, "lvs_timeouts: unknown protocol '" + n.arg(i)
                    + "' (tcp, tcpfin or udp)");
              }
            }
            if (n.argc() % 2 != 0) {
              v.error(n, "lvs_timeouts: '" + n.arg(n.argc()) + "' needs a value");
            }
          }
          break;
        case "checker_log_all_failures": {
          Boolean b = v.args(n, 0, 1) ? v.bool(n, 1) : null;
          if (b != null) {
            logAll = b;
          }
          break;
        }
        case "rs_init_notifies":
          if (v.args(n, 0, 0)) {
            rsInit = true;
          }
          break;
        case "no_checker_emails":
          if (v.args(n, 0, 0)) {
            noEmails = true;
          }
          break;
        case "script_user":
          if (v.args(n, 1, 2)) {
            scriptUser = Optional.of(String.join(" ", n.words.subList(1, n.words.size())));
          }
          break;
        case "enable_script_security":
          if (v.args(n, 0, 0)) {
            security = true;
          }
          break;
        default:
          if (Keywords.IGNORED_GLOBAL.contains(k) || k.startsWith("vrrp_")) {
            v.warn(n, "global_defs '" + k + "' is not used by Fairway; ignored");
          } else {
            unknown(n, union(GLOBAL, Keywords.IGNORED_GLOBAL), "global_defs");
          }
      }
    }
    return new GlobalDefs(routerId, emails, from, smtpServer, smtpTimeout, smtpAlert, flush,
        flushOnStop, tcp, tcpFin, udp, logAll, rsInit, noEmails, scriptUser, security);
  }

  private SslContext ssl(Node block) {
    Map<String, String> m = new HashMap<>();
    for (Node n : block.children) {
      switch (n.keyword()) {
        case "password":
        case "ca":
        case "certificate":
        case "key":
          if (v.args(n, 1, 1)) {
            m.put(n.keyword(), n.arg(1));
          }
          break;
        default:
          unknown(n, Set.of("password", "ca", "certificate", "key"), "SSL");
      }
    }
    return new SslContext(Optional.ofNullable(m.get("password")), Optional.ofNullable(m.get("ca")),
        Optional.ofNullable(m.get("certificate")), Optional.ofNullable(m.get("key")));
  }

  // --- track_file ------------------------------------------------------------------------------

  private void trackFile(Node n) {
    if (n.argc() != 1) {
      v.error(n, n.keyword() + " needs exactly one name");
      return;
    }
    if (!v.block(n)) {
      return;
    }
    if (n.keyword().equals("vrrp_track_file")) {
      v.warn(n, "vrrp_track_file is keepalived's old name for track_file");
    }
    String name = n.arg(1);
    String file = null;
    int weight = 1;
    boolean reverse = false;
    Optional<Long> init = Optional.empty();
    boolean overwrite = false;
    for (Node c : n.children) {
      switch (c.keyword()) {
        case "file":
          if (v.args(c, 1, 1)) {
            file = c.arg(1);
          }
          break;
        case "weight": {
          if (!v.args(c, 1, 2)) {
            break;
          }
          Long w = signed(c, 1, -254, 254, "weight");
          if (w != null) {
            weight = w.intValue();
          }
          if (c.argc() == 2) {
            if (c.arg(2).equals("reverse")) {
              reverse = true;
            } else if (!c.arg(2).equals("noreverse")) {
              v.error(c, "weight: expected 'reverse' or 'noreverse', got '" + c.arg(2) + "'");
            }
          }
          break;
        }
        case "init_file": {
          if (!v.args(c, 0, 2)) {
            break;
          }
          long val = 0;
          for (int i = 1; i <= c.argc(); i++) {
            if (c.arg(i).equals("overwrite")) {
              overwrite = true;
            } else {
              Long x = signed(c, i, Integer.MIN_VALUE, Integer.MAX_VALUE, "value");
              if (x != null) {
                val = x;
              }
            }
          }
          init = Optional.of(val);
          break;
        }
        default:
          unknown(c, Set.of("file", "weight", "init_file"), "track_file");
      }
    }
    if (file == null) {
      v.error(n, "track_file " + name + " has no 'file'");
      return;
    }
    if (trackFiles.containsKey(name)) {
      v.error(n, "duplicate track_file '" + name + "'");
      return;
    }
    trackFiles.put(name, new TrackFile(loc(n), name, file, weight, reverse, init, overwrite));
  }

  private Long signed(Node n, int i, long min, long max, String what) {
    if (i > n.argc()) {
      v.error(n, n.keyword() + ": missing " + what);
      return null;
    }
    Long x = Values.parseLong(n.arg(i));
    if (x == null) {
      v.error(n, n.keyword() + ": " + what + " '" + n.arg(i) + "' is not an integer");
      return null;
    }
    if (x < min || x > max) {
      v.error(n, n.keyword() + ": " + what + " " + x + " is out of range " + min + ".." + max);
      return null;
    }
    return x;
  }

  // --- virtual_server_group --------------------------------------------------------------------

  private void group(Node n) {
    if (n.argc() != 1) {
      v.error(n, "virtual_server_group needs exactly one name");
      return;
    }
    if (!v.block(n)) {
      return;
    }
    List<GroupEntry> entries = new ArrayList<>();
    for (Node e : n.children) {
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
      for (Node e : n.children) {
        if (e.keyword().equals("fwmark") && e.argc() == 1) {
          v.error(e, "virtual_server_group " + n.arg(1) + " has IPv4 and IPv6 addresses, so its "
              + "fwmark needs a family (inet or inet6), as keepalived requires");
        }
      }
    }
    if (groups.containsKey(n.arg(1))) {
      v.error(n, "duplicate virtual_server_group '" + n.arg(1) + "'");
      return;
    }
    groups.put(n.arg(1), new VirtualServerGroup(loc(n), n.arg(1), entries));
  }

  private GroupEntry groupEntry(Node e) {
    List<String> w = e.words;
    if (w.get(0).equals("fwmark")) {
      if (w.size() < 2 || w.size() > 3) {
        v.error(e, "expected 'fwmark N [inet|inet6]'");
        return null;
      }
      Long mark = v.number(e, 1, 1, UINT32_MAX, "fwmark");
      AddressFamily af = AddressFamily.INET;
      if (w.size() == 3) {
        af = family(e, w.get(2));
      }
      return mark == null || af == null ? null : new GroupEntry.Fwmark(mark, af);
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
    int slash = spec.indexOf('/');
    int dash = spec.indexOf('-');
    try {
      if (slash >= 0) {
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
      if (dash >= 0) {
        InetAddress first = Values.address(spec.substring(0, dash));
        String end = spec.substring(dash + 1);
        if (first == null) {
          v.error(e, "virtual_server_group: '" + spec.substring(0, dash) + "' is not an address");
          return null;
        }
        InetAddress last = Values.address(end);
        if (last == null) {
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
          last = InetAddress.getByAddress(b);
        } else if (last.getClass() != first.getClass()) {
          v.error(e, "virtual_server_group: range mixes IPv4 and IPv6");
          return null;
        }
        GroupEntry.AddressRange r = new GroupEntry.AddressRange(first, last, port);
        if (new java.math.BigInteger(1, last.getAddress())
            .compareTo(new java.math.BigInteger(1, first.getAddress())) < 0) {
          v.error(e, "virtual_server_group: range '" + spec + "' ends before it starts");
          return null;
        }
        if (r.size() > 65536) {
          v.error(e, "virtual_server_group: range '" + spec + "' is larger than 65536 addresses");
          return null;
        }
        return r;
      }
    } catch (java.net.UnknownHostException | ArithmeticException ex) {
      v.error(e, "virtual_server_group: bad address '" + spec + "'");
      return null;
    }
    InetAddress a = Values.address(spec);
    if (a == null) {
      v.error(e, "virtual_server_group: '" + spec + "' is not an address, range or 'fwmark N'");
      return null;
    }
    return new GroupEntry.AddressRange(a, a, port);
  }

  private AddressFamily family(Node n, String s) {
    switch (s) {
      case "inet":
        return AddressFamily.INET;
      case "inet6":
        return AddressFamily.INET6;
      default:
        v.error(n, "'" + s + "' is not an address family (inet or inet6)");
        return null;
    }
  }

  // --- timing inheritance ----------------------------------------------------------------------

  /** Timing values as written at one level; null = not written there. */
  static final class Timing {
    Duration delayLoop;
    Duration connectTimeout;
    Long retry;
    Duration delayBeforeRetry;
    Duration warmup;
    Boolean alpha;

    Timing over(Timing parent) {
      Timing t = new Timing();
      t.delayLoop = delayLoop != null ? delayLoop : parent.delayLoop;
      t.connectTimeout = connectTimeout != null ? connectTimeout : parent.connectTimeout;
      t.retry = retry != null ? retry : parent.retry;
      t.delayBeforeRetry = delayBeforeRetry != null ? delayBeforeRetry : parent.delayBeforeRetry;
      t.warmup = warmup != null ? warmup : parent.warmup;
      t.alpha = alpha != null ? alpha : parent.alpha;
      return t;
    }
  }

  /** Handles a timing keyword; returns false if {@code n} is not one. */
  private boolean timing(Node n, Timing t, boolean checker) {
    switch (n.keyword()) {
      case "delay_loop":
        if (v.args(n, 1, 1)) {
          t.delayLoop = v.timer(n, 1, false);
        }
        return true;
      case "connect_timeout":
        if (v.args(n, 1, 1)) {
          t.connectTimeout = v.timer(n, 1, false);
        }
        return true;
      case "retry":
      case "nb_get_retry":
        if (n.keyword().equals("nb_get_retry")) {
          v.warn(n, "nb_get_retry is deprecated; use retry");
        }
        if (v.args(n, 1, 1)) {
          t.retry = v.number(n, 1, checker ? 0 : 1, UINT32_MAX, "retry count");
        }
        return true;
      case "delay_before_retry":
        if (v.args(n, 1, 1)) {
          t.delayBeforeRetry = v.timer(n, 1, true);
        }
        return true;
      case "warmup":
        if (v.args(n, 1, 1)) {
          t.warmup = v.timer(n, 1, true);
        }
        return true;
      case "alpha":
        if (v.args(n, 0, 1)) {
          t.alpha = v.bool(n, 1);
        }
        return true;
      default:
        return false;
    }
  }

  // --- virtual_server --------------------------------------------------------------------------

  /** What a virtual_server passes down to its real servers and checkers. */
  private record VsContext(
      Scheduler scheduler,
      Forwarding forwarding,
      boolean fwmarkOrGroup,
      int port,
      AddressFamily family,
      double weight,
      boolean inhibit,
      Timing timing,
      String virtualhost) {}

  private VirtualServer virtualServer(Node n) {
    VirtualServerId.Address addrId = null;
    Long fwmark = null;
    String groupName = null;
    if (n.argc() >= 1 && n.arg(1).equals("fwmark")) {
      if (n.argc() != 2) {
        v.error(n, "expected 'virtual_server fwmark N'");
        return null;
      }
      fwmark = v.number(n, 2, 1, UINT32_MAX, "fwmark");
      if (fwmark == null) {
        return null;
      }
    } else if (n.argc() >= 1 && n.arg(1).equals("group")) {
      if (n.argc() != 2) {
        v.error(n, "expected 'virtual_server group NAME'");
        return null;
      }
      groupName = n.arg(2);
      if (!groups.containsKey(groupName)) {
        Optional<String> s = Keywords.suggest(groupName, groups.keySet());
        v.error(n, "virtual_server_group '" + groupName + "' is not defined"
            + s.map(x -> " (did you mean '" + x + "'?)").orElse(""));
        return null;
      }
    } else {
      if (n.argc() < 1 || n.argc() > 2) {
        v.error(n, "expected 'virtual_server IP [PORT]', 'virtual_server fwmark N' or "
            + "'virtual_server group NAME'");
        return null;
      }
      InetAddress a = v.address(n, 1, "address");
      Integer port = n.argc() == 2 ? v.port(n, 2) : Integer.valueOf(0);
      if (a == null || port == null) {
        return null;
      }
      addrId = new VirtualServerId.Address(a, Protocol.TCP, port);
    }
    if (!v.block(n)) {
      return null;
    }

    String name = null;
    Scheduler scheduler = null;
    Node schedulerNode = null;
    Forwarding forwarding = null;
    Node forwardingNode = null;
    Duration persistence = null;
    Integer granularity = null;
    Node granularityNode = null;
    Optional<String> engine = Optional.empty();
    Protocol protocol = null;
    Node protocolNode = null;
    Set<SchedulerFlag> flags = EnumSet.noneOf(SchedulerFlag.class);
    Map<SchedulerFlag, Node> flagNodes = new HashMap<>();
    AddressFamily ipFamily = null;
    Timing timing = new Timing();
    boolean inhibit = false;
    boolean omega = false;
    Long quorum = null;
    Long hysteresis = null;
    Optional<Script> quorumUp = Optional.empty();
    Optional<Script> quorumDown = Optional.empty();
    Double weight = null;
    Node weightNode = null;
    Node sorryNode = null;
    boolean sorryInhibit = false;
    Forwarding sorryForwarding = null;
    boolean haSuspend = false;
    String virtualhost = null;
    Map<String, Node> directorBlocks = new LinkedHashMap<>();
    Integer hashBalance = null;
    Node hashBalanceNode = null;
    List<Node> rsNodes = new ArrayList<>();

    for (Node c : n.children) {
      String k = c.keyword();
      if (timing(c, timing, false)) {
        continue;
      }
      switch (k) {
        case "name":
          if (v.args(c, 1, 1)) {
            name = c.arg(1);
          }
          break;
        case "lb_algo":
        case "lvs_sched":
          if (v.args(c, 1, 1)) {
            scheduler = scheduler(c);
            schedulerNode = c;
          }
          break;
        case "lb_kind":
        case "lvs_method":
          forwarding = forwarding(c);
          forwardingNode = c;
          break;
        case "persistence_timeout":
          if (v.args(c, 0, 1)) {
            if (c.argc() == 0) {
              persistence = DEFAULT_PERSISTENCE;
            } else {
              Long s = v.number(c, 1, 0, MAX_PERSISTENCE_SECONDS, "seconds");
              if (s != null) {
                persistence = Duration.ofSeconds(s);
              }
            }
          }
          break;
        case "persistence_granularity":
          if (v.args(c, 1, 1)) {
            granularity = granularity(c);
            granularityNode = c;
          }
          break;
        case "persistence_engine":
          if (v.args(c, 1, 1)) {
            engine = Optional.of(c.arg(1));
          }
          break;
        case "protocol":
          if (v.args(c, 1, 1)) {
            try {
              protocol = Protocol.valueOf(c.arg(1).toUpperCase(Locale.ROOT));
              protocolNode = c;
            } catch (IllegalArgumentException e) {
              v.error(c, "protocol: '" + c.arg(1) + "' is not TCP, UDP or SCTP");
            }
          }
          break;
        case "ops":
        case "flag-1":
        case "flag-2":
        case "flag-3":
        case "sh-port":
        case "sh-fallback":
        case "mh-port":
        case "mh-fallback":
          if (v.args(c, 0, 0)) {
            SchedulerFlag f = SchedulerFlag.byKeyword(k).orElseThrow();
            flags.add(f);
            flagNodes.put(f, c);
          }
          break;
        case "hashed":
          v.warn(c, "'hashed' has no effect (keepalived ignores it too)");
          break;
        case "ip_family":
          if (v.args(c, 1, 1)) {
            ipFamily = family(c, c.arg(1));
          }
          break;
        case "inhibit_on_failure": {
          Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
          if (b != null) {
            inhibit = b;
          }
          break;
        }
        case "omega": {
          Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
          if (b != null) {
            omega = b;
          }
          break;
        }
        case "quorum":
          if (v.args(c, 1, 1)) {
            quorum = v.number(c, 1, 1, UINT32_MAX, "quorum");
          }
          break;
        case "hysteresis":
          if (v.args(c, 1, 1)) {
            hysteresis = v.number(c, 1, 0, UINT32_MAX, "hysteresis");
          }
          break;
        case "quorum_up":
          quorumUp = Optional.ofNullable(script(c));
          break;
        case "quorum_down":
          quorumDown = Optional.ofNullable(script(c));
          break;
        case "weight":
          if (v.args(c, 1, 1)) {
            weight = v.decimal(c, 1, 0, INT32_MAX, "weight");
            weightNode = c;
          }
          break;
        case "sorry_server":
          if (v.args(c, 1, 2)) {
            sorryNode = c;
          }
          break;
        case "sorry_server_inhibit": {
          Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
          if (b != null) {
            sorryInhibit = b;
          }
          break;
        }
        case "sorry_server_lvs_method":
          sorryForwarding = forwarding(c);
          break;
        case "ha_suspend":
          if (v.args(c, 0, 0)) {
            haSuspend = true;
          }
          break;
        case "virtualhost":
          if (v.args(c, 1, 1)) {
            virtualhost = c.arg(1);
          }
          break;
        case "smtp_alert":
        case "snmp_name":
        case "quorum_max":
          v.warn(c, "'" + k + "' is not supported by Fairway yet; ignored");
          break;
        case "shard":
        case "fallback":
        case "hash":
          if (v.block(c)) {
            if (c.argc() > 0) {
              v.error(c, "'" + k + "' takes no arguments before its { } block");
            }
            directorBlocks.put(k, c);
          }
          break;
        case "hash_balance_factor":
          if (v.args(c, 1, 1)) {
            Long f = v.number(c, 1, 0, 100_000, "factor");
            if (f != null && f != 0 && f <= 100) {
              v.error(c, "hash_balance_factor must be 0 (off) or above 100 (percent of the mean load)");
            } else if (f != null) {
              hashBalance = f.intValue();
              hashBalanceNode = c;
            }
          }
          break;
        case "real_server":
          rsNodes.add(c);
          break;
        default:
          if (k.equals("lthreshold") || k.equals("uthreshold")) {
            v.error(c, "'" + k + "' belongs in a real_server block");
          } else {
            unknown(c, VS, "virtual_server");
          }
      }
    }

    // --- defaults and cross-keyword checks ---
    if (scheduler == null) {
      scheduler = Scheduler.WLC;
    }
    boolean varnish = !scheduler.isKernel();
    if (forwarding == null) {
      forwarding = Forwarding.of(varnish ? ForwardingMethod.PROXY : ForwardingMethod.NAT);
    } else if (varnish && forwarding.method().isKernel()) {
      v.error(forwardingNode, "lb_algo " + scheduler.keyword() + " is a Varnish director and "
          + "needs Fairway's data plane: lb_kind PROXY or HTTP, not " + forwarding.method());
    }
    boolean userspace = !forwarding.method().isKernel();
    if (fwmark != null || groupName != null) {
      if (userspace) {
        v.error(forwardingNode != null ? forwardingNode : n, "lb_kind " + forwarding.method()
            + " needs 'virtual_server IP PORT' (the proxy listens on an address, not a "
            + (fwmark != null ? "fwmark" : "group") + ")");
      }
    }
    if (protocol == null) {
      if (fwmark == null) {
        if (userspace) {
          protocol = Protocol.TCP;
        } else {
          protocol = Protocol.UDP;
          v.warn(n, "no protocol set - defaulting to UDP, as keepalived does");
        }
      } else {
        protocol = Protocol.TCP;
      }
    } else if (fwmark != null) {
      v.warn(protocolNode, "protocol is ignored for a fwmark virtual_server");
      protocol = Protocol.TCP;
    }
    if (userspace && protocol != Protocol.TCP) {
      v.error(protocolNode != null ? protocolNode : n, "lb_kind " + forwarding.method()
          + " proxies TCP only, not " + protocol);
    }
    for (SchedulerFlag f : flags) {
      Node fn = flagNodes.get(f);
      if ((f == SchedulerFlag.SH_PORT || f == SchedulerFlag.SH_FALLBACK) && scheduler != Scheduler.SH) {
        v.error(fn, f.keyword() + " needs lb_algo sh (it is " + scheduler.keyword() + ")");
      }
      if ((f == SchedulerFlag.MH_PORT || f == SchedulerFlag.MH_FALLBACK) && scheduler != Scheduler.MH) {
        v.error(fn, f.keyword() + " needs lb_algo mh (it is " + scheduler.keyword() + ")");
      }
      if (f == SchedulerFlag.OPS && protocol != Protocol.UDP) {
        v.error(fn, "ops (one-packet scheduling) is for UDP services only");
      }
    }
    if (hashBalance != null && scheduler != Scheduler.MH && scheduler != Scheduler.SHARD) {
      v.error(hashBalanceNode, "hash_balance_factor applies to lb_algo mh or shard, not "
          + scheduler.keyword());
    }
    DirectorSpec director = director(scheduler, directorBlocks, forwarding.method());

    VirtualServerId id;
    int vsPort = 0;
    if (addrId != null) {
      id = new VirtualServerId.Address(addrId.address(), protocol, addrId.port());
      vsPort = addrId.port();
    } else if (groupName != null) {
      id = new VirtualServerId.Group(groupName, protocol);
    } else {
      id = null;
    }
    if (granularity != null && persistence == null) {
      persistence = DEFAULT_PERSISTENCE;
    }
    if (persistence == null) {
      persistence = Duration.ZERO;
    }
    if (addrId != null && vsPort == 0 && persistence.isZero()) {
      v.warn(n, "port 0 is only valid for persistent services - setting persistence_timeout 360");
      persistence = DEFAULT_PERSISTENCE;
    }
    if (weight != null && !varnish && weight != Math.rint(weight)) {
      v.error(weightNode, "weight must be an integer for lb_algo " + scheduler.keyword());
    }

    VsContext ctx = new VsContext(scheduler, forwarding, fwmark != null || groupName != null,
        vsPort, addrId == null ? null : AddressFamily.of(addrId.address()),
        weight == null ? 1 : weight, inhibit, timing, virtualhost);
    List<RealServer> reals = new ArrayList<>();
    Map<RealServerId, RealServer> seen = new HashMap<>();
    Map<String, RealServer> names = new HashMap<>();
    Map<String, RealServer> idents = new HashMap<>();
    for (Node rn : rsNodes) {
      RealServer rs = realServer(rn, ctx);
      if (rs == null) {
        continue;
      }
      if (seen.containsKey(rs.id())) {
        v.warn(rn, "duplicate real_server " + rs.id() + " (first at " + seen.get(rs.id()).location()
            + ") - ignored, as keepalived does");
        continue;
      }
      RealServer prevName = names.get(rs.name());
      if (prevName != null) {
        v.error(rn, "duplicate real_server name '" + rs.name() + "' (also at "
            + prevName.location() + ")");
        continue;
      }
      RealServer prevIdent = idents.get(rs.ident());
      if (prevIdent != null) {
        v.error(rn, "duplicate real_server ident '" + rs.ident() + "' (also at "
            + prevIdent.location() + ")");
        continue;
      }
      seen.put(rs.id(), rs);
      names.put(rs.name(), rs);
      idents.put(rs.ident(), rs);
      reals.add(rs);
    }
    if (fwmark != null) {
      AddressFamily af = ipFamily;
      if (af == null) {
        af = reals.isEmpty() ? AddressFamily.INET : reals.get(0).id().family();
      }
      id = new VirtualServerId.Fwmark(fwmark, af);
    } else if (ipFamily != null) {
      v.warn(n, "ip_family only matters for fwmark virtual servers; ignored");
    }

    Optional<SorryServer> sorry = Optional.empty();
    if (sorryNode != null) {
      InetAddress a = v.address(sorryNode, 1, "address");
      Integer p = sorryNode.argc() == 2 ? v.port(sorryNode, 2) : Integer.valueOf(0);
      if (a != null && p != null) {
        Forwarding sf = sorryForwarding != null ? sorryForwarding : forwarding;
        int port = effectivePort(sorryNode, p, sf, ctx);
        RealServerId sid = new RealServerId(a, port);
        for (RealServer rs : reals) {
          if (rs.id().equals(sid)) {
            v.error(sorryNode, "sorry_server " + sid + " is also a real_server (at "
                + rs.location() + "); Fairway refuses this (keepalived issue #1370)");
          }
        }
        sorry = Optional.of(new SorryServer(loc(sorryNode), sid, sf, sorryInhibit));
      }
    } else if (sorryInhibit) {
      v.warn(n, "sorry_server_inhibit without sorry_server has no effect");
    }

    if (reals.isEmpty()) {
      v.warn(n, "virtual_server " + (id == null ? "" : id + " ") + "has no real_server - ignored, "
          + "as keepalived does");
      return null;
    }
    if (id == null) {
      return null;
    }

    long q = quorum == null ? 1 : quorum;
    long sum = 0;
    for (RealServer rs : reals) {
      sum += (long) Math.floor(rs.weight());
    }
    if (q > sum && sum > 0) {
      v.warn(n, "quorum " + q + " exceeds the total weight of the real servers " + sum
          + "; reducing quorum to " + sum + ", as keepalived does");
      q = sum;
    }
    long h = hysteresis == null ? 0 : hysteresis;
    if (h >= q && h > 0) {
      v.warn(n, "hysteresis " + h + " >= quorum " + q + "; setting hysteresis to " + (q - 1)
          + ", as keepalived does");
      h = q - 1;
    }
    if (granularityNode != null && addrId != null && granularity != null) {
      int max = addrId.address() instanceof Inet6Address ? 128 : 32;
      if (granularity > max) {
        v.error(granularityNode, "persistence_granularity /" + granularity
            + " is longer than the address");
      }
    }
    String vsName = name;
    if (vsName == null) {
      if (id instanceof VirtualServerId.Address a) {
        vsName = defaultName(a);
      } else if (id instanceof VirtualServerId.Fwmark f) {
        vsName = "fwmark:" + f.fwmark();
      } else {
        vsName = "group:" + ((VirtualServerId.Group) id).name();
      }
    }
    return new VirtualServer(loc(n), id, vsName, scheduler, director,
        hashBalance == null ? 0 : hashBalance, forwarding, flags, persistence,
        Optional.ofNullable(granularity), engine, haSuspend, omega, q, h, quorumUp, quorumDown,
        sorry, reals);
  }

  private Scheduler scheduler(Node c) {
    Optional<Scheduler> s = Scheduler.byKeyword(c.arg(1));
    if (s.isEmpty()) {
      Optional<String> sug = Keywords.suggest(c.arg(1),
          Arrays.stream(Scheduler.values()).map(Scheduler::keyword).toList());
      v.error(c, "unknown scheduler '" + c.arg(1) + "'" + sug.map(x -> " (did you mean '" + x
          + "'?)").orElse("") + "; known: " + String.join(" ",
          Arrays.stream(Scheduler.values()).map(Scheduler::keyword).toList()));
      return null;
    }
    return s.get();
  }

  /** {@code lb_kind NAT|DR|TUN [type ipip|gue|gre] [port N] [nocsum|csum|remcsum]|PROXY|HTTP}. */
  private Forwarding forwarding(Node c) {
    if (c.hasBlock() || c.argc() < 1) {
      v.args(c, 1, 6);
      return null;
    }
    Optional<ForwardingMethod> m = ForwardingMethod.byKeyword(c.arg(1));
    if (m.isEmpty()) {
      v.error(c, "unknown forwarding method '" + c.arg(1) + "'" + Keywords.suggest(c.arg(1),
          List.of("NAT", "DR", "TUN", "PROXY", "HTTP")).map(x -> " (did you mean '" + x + "'?)")
          .orElse("") + "; known: NAT DR TUN PROXY HTTP");
      return null;
    }
    if (m.get() != ForwardingMethod.TUN) {
      if (c.argc() > 1) {
        v.error(c, c.keyword() + " " + m.get() + " takes no options, got '" + c.arg(2) + "'");
        return null;
      }
      return Forwarding.of(m.get());
    }
    Forwarding.TunnelType type = Forwarding.TunnelType.IPIP;
    int port = 0;
    Forwarding.TunnelChecksum csum = Forwarding.TunnelChecksum.NONE;
    for (int i = 2; i <= c.argc(); i++) {
      String o = c.arg(i);
      switch (o) {
        case "type":
          if (i + 1 > c.argc()) {
            v.error(c, "type needs ipip, gue or gre");
            return null;
          }
          switch (c.arg(++i)) {
            case "ipip": type = Forwarding.TunnelType.IPIP; break;
            case "gue": type = Forwarding.TunnelType.GUE; break;
            case "gre": type = Forwarding.TunnelType.GRE; break;
            default:
              v.error(c, "unknown tunnel type '" + c.arg(i) + "' (ipip, gue or gre)");
              return null;
          }
          break;
        case "port": {
          Long p = v.number(c, ++i, 1, 65535, "tunnel port");
          if (p == null) {
            return null;
          }
          port = p.intValue();
          break;
        }
        case "nocsum": csum = Forwarding.TunnelChecksum.NOCSUM; break;
        case "csum": csum = Forwarding.TunnelChecksum.CSUM; break;
        case "remcsum": csum = Forwarding.TunnelChecksum.REMCSUM; break;
        default:
          v.error(c, "unknown tunnel option '" + o + "'");
          return null;
      }
    }
    if (type == Forwarding.TunnelType.GUE && port == 0) {
      v.error(c, "tunnel type gue needs a port");
      return null;
    }
    if (type != Forwarding.TunnelType.GUE && port != 0) {
      v.error(c, "only tunnel type gue takes a port");
      return null;
    }
    if (type == Forwarding.TunnelType.IPIP && csum != Forwarding.TunnelChecksum.NONE) {
      v.error(c, "tunnel type ipip takes no checksum option");
      return null;
    }
    if (type == Forwarding.TunnelType.GRE && csum == Forwarding.TunnelChecksum.REMCSUM) {
      v.error(c, "tunnel type gre does not support remcsum");
      return null;
    }
    return new Forwarding(ForwardingMethod.TUN, type, port, csum);
  }

  /** An IPv4 netmask (contiguous) or a prefix length; stored as the prefix length. */
  private Integer granularity(Node c) {
    String s = c.arg(1);
    InetAddress mask = Values.address(s);
    if (mask instanceof Inet4Address) {
      int bits = 0;
      byte[] b = mask.getAddress();
      int m = ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
      bits = Integer.bitCount(m);
      if (m != (bits == 0 ? 0 : -1 << (32 - bits))) {
        v.error(c, "persistence_granularity " + s + " is not a contiguous netmask");
        return null;
      }
      return bits;
    }
    Long p = Values.parseLong(s);
    if (p == null || p < 1 || p > 128) {
      v.error(c, "persistence_granularity '" + s + "' is not a netmask or a prefix length 1..128");
      return null;
    }
    return p.intValue();
  }

  private DirectorSpec director(Scheduler s, Map<String, Node> blocks, ForwardingMethod method) {
    for (Map.Entry<String, Node> e : blocks.entrySet()) {
      if (!e.getKey().equals(s.keyword())) {
        v.error(e.getValue(), "'" + e.getKey() + " { }' needs lb_algo " + e.getKey()
            + " (it is " + s.keyword() + ")");
      }
    }
    Node b = blocks.get(s.keyword());
    List<Node> kids = b == null ? List.of() : b.children;
    switch (s) {
      case FALLBACK: {
        boolean sticky = false;
        for (Node c : kids) {
          if (c.keyword().equals("sticky")) {
            Boolean x = v.args(c, 0, 1) ? v.bool(c, 1) : null;
            if (x != null) {
              sticky = x;
            }
          } else {
            unknown(c, Set.of("sticky"), "fallback");
          }
        }
        return new DirectorSpec.Fallback(sticky);
      }
      case HASH: {
        KeySource by = null;
        for (Node c : kids) {
          if (c.keyword().equals("by")) {
            by = keySource(c, method, EnumSet.of(KeySource.Kind.URL, KeySource.Kind.HEADER,
                KeySource.Kind.COOKIE, KeySource.Kind.CLIENT_IP));
          } else {
            unknown(c, Set.of("by"), "hash");
          }
        }
        if (by == null) {
          by = KeySource.of(method == ForwardingMethod.HTTP ? KeySource.Kind.URL
              : KeySource.Kind.CLIENT_IP);
        }
        return new DirectorSpec.Hash(by);
      }
      case SHARD: {
        int replicas = DirectorSpec.Shard.DEFAULT_REPLICAS;
        KeySource by = null;
        DirectorSpec.Healthy healthy = DirectorSpec.Healthy.CHOSEN;
        double warmup = 0;
        Duration rampup = Duration.ZERO;
        for (Node c : kids) {
          switch (c.keyword()) {
            case "replicas":
              if (v.args(c, 1, 1)) {
                Long r = v.number(c, 1, 1, 100_000, "replicas");
                if (r != null) {
                  replicas = r.intValue();
                }
              }
              break;
            case "by":
              by = keySource(c, method, EnumSet.allOf(KeySource.Kind.class));
              break;
            case "healthy":
              if (v.args(c, 1, 1)) {
                try {
                  healthy = DirectorSpec.Healthy.valueOf(c.arg(1));
                } catch (IllegalArgumentException ex) {
                  v.error(c, "healthy: '" + c.arg(1) + "' is not CHOSEN, IGNORE or ALL");
                }
              }
              break;
            case "warmup":
              if (v.args(c, 1, 1)) {
                Double w = v.decimal(c, 1, 0, 1, "warmup probability");
                if (w != null) {
                  warmup = w;
                }
              }
              break;
            case "rampup":
              if (v.args(c, 1, 1)) {
                Duration d = v.timer(c, 1, true);
                if (d != null) {
                  rampup = d;
                }
              }
              break;
            default:
              unknown(c, Set.of("replicas", "by", "healthy", "warmup", "rampup"), "shard");
          }
        }
        if (by == null) {
          by = KeySource.of(method == ForwardingMethod.HTTP ? KeySource.Kind.HASH
              : KeySource.Kind.CLIENT_IP);
        }
        return new DirectorSpec.Shard(replicas, by, healthy, warmup, rampup);
      }
      default:
        return new DirectorSpec.None();
    }
  }

  private KeySource keySource(Node c, ForwardingMethod method, Set<KeySource.Kind> allowed) {
    if (!v.args(c, 1, 2)) {
      return null;
    }
    KeySource.Kind kind;
    try {
      kind = KeySource.Kind.valueOf(c.arg(1));
    } catch (IllegalArgumentException e) {
      kind = null;
    }
    if (kind == null || !allowed.contains(kind)) {
      v.error(c, "by: '" + c.arg(1) + "' is not one of " + new TreeSet<>(
          allowed.stream().map(Enum::name).toList()));
      return null;
    }
    if (kind.takesName() != (c.argc() == 2)) {
      v.error(c, kind.takesName() ? "by " + kind + " needs a name" : "by " + kind
          + " takes no name");
      return null;
    }
    if (kind.needsHttp() && method != ForwardingMethod.HTTP) {
      v.error(c, "by " + kind + " needs lb_kind HTTP (it is " + method + ")");
      return null;
    }
    return new KeySource(kind, c.argc() == 2 ? Optional.of(c.arg(2)) : Optional.empty());
  }

  private Script script(Node c) {
    if (c.hasBlock()) {
      v.error(c, "'" + c.keyword() + "' does not take a { } block");
      return null;
    }
    List<String> words = Tokenizer.quotedWords(c.line.text());
    if (words.size() < 2) {
      v.error(c, c.keyword() + " needs a command");
      return null;
    }
    if (words.size() > 4) {
      v.error(c, c.keyword() + ": after the command only 'user [group]' may follow; quote the "
          + "command if it has arguments");
      return null;
    }
    String cmd = words.get(1);
    List<String> argv = Tokenizer.argv(cmd);
    if (argv.isEmpty()) {
      v.error(c, c.keyword() + " needs a command");
      return null;
    }
    return new Script(cmd, argv, words.size() > 2 ? Optional.of(words.get(2)) : Optional.empty(),
        words.size() > 3 ? Optional.of(words.get(3)) : Optional.empty());
  }

  /** keepalived's real server port rules, extended to the userspace data plane. */
  private int effectivePort(Node n, int written, Forwarding f, VsContext vs) {
    ForwardingMethod m = f.method();
    if (m == ForwardingMethod.DR || m == ForwardingMethod.TUN) {
      if (vs.fwmarkOrGroup()) {
        if (written != 0) {
          v.warn(n, m + " real server under a fwmark/group virtual_server: port " + written
              + " is ignored, as keepalived does");
        }
        return 0;
      }
      if (written != 0 && written != vs.port()) {
        v.warn(n, m + " real server port " + written + " differs from the virtual server port "
            + vs.port() + "; using " + vs.port() + ", as keepalived does");
      }
      return vs.port();
    }
    return written == 0 ? vs.port() : written;
  }

  // --- real_server -----------------------------------------------------------------------------

  private RealServer realServer(Node n, VsContext vs) {
    if (n.argc() < 1 || n.argc() > 2) {
      v.error(n, "expected 'real_server IP [PORT]'");
      return null;
    }
    InetAddress a = v.address(n, 1, "address");
    Integer written = n.argc() == 2 ? v.port(n, 2) : Integer.valueOf(0);
    if (a == null || written == null || !v.block(n)) {
      return null;
    }
    String name = null;
    String ident = null;
    Node identNode = null;
    double weight = vs.weight();
    Forwarding forwarding = vs.forwarding();
    Node forwardingNode = null;
    long upper = 0;
    long lower = 0;
    Node thresholdNode = null;
    boolean inhibit = vs.inhibit();
    Optional<Script> up = Optional.empty();
    Optional<Script> down = Optional.empty();
    Timing timing = new Timing();
    String virtualhost = null;
    List<Node> checkerNodes = new ArrayList<>();
    for (Node c : n.children) {
      String k = c.keyword();
      if (timing(c, timing, false)) {
        continue;
      }
      switch (k) {
        case "name":
          if (v.args(c, 1, 1)) {
            name = c.arg(1);
          }
          break;
        case "ident":
          if (v.args(c, 1, 1)) {
            ident = c.arg(1);
            identNode = c;
          }
          break;
        case "weight":
          if (v.args(c, 1, 1)) {
            Double w = v.decimal(c, 1, 0, INT32_MAX, "weight");
            if (w != null) {
              if (vs.scheduler() != null && vs.scheduler().isKernel() && w != Math.rint(w)) {
                v.error(c, "weight must be an integer for lb_algo " + vs.scheduler().keyword()
                    + " (decimals are for the Varnish directors)");
              }
              weight = w;
            }
          }
          break;
        case "lvs_method": {
          Forwarding f = forwarding(c);
          if (f != null) {
            forwarding = f;
            forwardingNode = c;
          }
          break;
        }
        case "lb_kind":
          v.error(c, "lb_kind is not valid in a real_server (keepalived uses lvs_method there)");
          break;
        case "uthreshold":
          if (v.args(c, 1, 1)) {
            Long u = v.number(c, 1, 0, UINT32_MAX, "uthreshold");
            if (u != null) {
              upper = u;
              thresholdNode = c;
            }
          }
          break;
        case "lthreshold":
          if (v.args(c, 1, 1)) {
            Long l = v.number(c, 1, 0, UINT32_MAX, "lthreshold");
            if (l != null) {
              lower = l;
              thresholdNode = c;
            }
          }
          break;
        case "inhibit_on_failure": {
          Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
          if (b != null) {
            inhibit = b;
          }
          break;
        }
        case "notify_up":
          up = Optional.ofNullable(script(c));
          break;
        case "notify_down":
          down = Optional.ofNullable(script(c));
          break;
        case "virtualhost":
          if (v.args(c, 1, 1)) {
            virtualhost = c.arg(1);
          }
          break;
        case "smtp_alert":
        case "snmp_name":
          v.warn(c, "'" + k + "' is not supported by Fairway yet; ignored");
          break;
        default:
          if (CHECKERS.contains(k)) {
            checkerNodes.add(c);
          } else {
            unknown(c, RS, "real_server");
          }
      }
    }
    if (forwardingNode != null && vs.forwarding() != null
        && forwarding.method().isKernel() != vs.forwarding().method().isKernel()) {
      v.error(forwardingNode, "a real_server cannot use " + forwarding.method()
          + " under a virtual_server with lb_kind " + vs.forwarding().method());
    }
    if (lower > upper) {
      v.error(thresholdNode, upper == 0
          ? "lthreshold " + lower + " without uthreshold (the kernel rejects it)"
          : "lthreshold " + lower + " is above uthreshold " + upper);
    }
    if (vs.family() != null && AddressFamily.of(a) != vs.family()
        && forwarding.method() != ForwardingMethod.TUN) {
      v.error(n, "real_server " + Addresses.format(a) + " is " + AddressFamily.of(a).keyword()
          + " but the virtual_server is " + vs.family().keyword()
          + " (only tunnelled real servers may differ)");
    }
    int port = effectivePort(n, written, forwarding, vs);
    if (!forwarding.method().isKernel() && port == 0) {
      v.error(n, "real_server needs a port with lb_kind " + forwarding.method());
    }
    RealServerId id = new RealServerId(a, port);
    String rsName = name != null ? name : id.toString();
    if (identNode != null && vs.scheduler() != Scheduler.SHARD) {
      v.warn(identNode, "ident is only used by lb_algo shard");
    }
    Timing effective = timing.over(vs.timing());
    String vhost = virtualhost != null ? virtualhost : vs.virtualhost();
    List<Checker> checkers = new ArrayList<>();
    for (Node c : checkerNodes) {
      checkers.addAll(checker(c, a, port, effective, vhost));
    }
    return new RealServer(loc(n), id, rsName, ident != null ? ident : rsName, weight, forwarding,
        upper, lower, inhibit, up, down, checkers);
  }

  // --- checkers --------------------------------------------------------------------------------

  private static final class EndpointDraft {
    InetAddress ip;
    Integer port;
    InetAddress bindTo;
    int bindPort;
    String bindIf;
    long fwmark;
  }

  private boolean endpoint(Node c, EndpointDraft e) {
    switch (c.keyword()) {
      case "connect_ip":
        if (v.args(c, 1, 1)) {
          e.ip = v.address(c, 1, "address");
        }
        return true;
      case "connect_port":
        if (v.args(c, 1, 1)) {
          e.port = v.port(c, 1);
        }
        return true;
      case "bindto":
        if (v.args(c, 1, 1)) {
          e.bindTo = v.address(c, 1, "address");
        }
        return true;
      case "bind_port":
        if (v.args(c, 1, 1)) {
          Integer p = v.port(c, 1);
          e.bindPort = p == null ? 0 : p;
        }
        return true;
      case "bind_if":
        if (v.args(c, 1, 1)) {
          e.bindIf = c.arg(1);
        }
        return true;
      case "fwmark":
        if (v.args(c, 1, 1)) {
          Long m = v.number(c, 1, 0, UINT32_MAX, "fwmark");
          e.fwmark = m == null ? 0 : m;
        }
        return true;
      default:
        return false;
    }
  }

  private Endpoint resolve(Node n, EndpointDraft e, InetAddress rsAddr, int rsPort, boolean needPort) {
    int port = e.port != null ? e.port : rsPort;
    if (needPort && port == 0) {
      v.error(n, n.keyword() + " has no port to check: the real_server has none, set connect_port");
    }
    return new Endpoint(e.ip != null ? e.ip : rsAddr, port, Optional.ofNullable(e.bindTo),
        e.bindPort, Optional.ofNullable(e.bindIf), e.fwmark);
  }

  private CheckerTiming resolveTiming(Timing t, String type) {
    Duration delayLoop = t.delayLoop != null ? t.delayLoop : DEFAULT_DELAY_LOOP;
    long retryDefault = switch (type) {
      case "DNS_CHECK" -> 3;
      case "MISC_CHECK" -> 0;
      default -> 1;
    };
    Duration dbrDefault = switch (type) {
      case "HTTP_GET", "SSL_GET" -> Duration.ofSeconds(3);
      case "DNS_CHECK" -> delayLoop;
      default -> Duration.ofSeconds(1);
    };
    long retry = t.retry != null ? t.retry : retryDefault;
    Duration dbr = t.delayBeforeRetry != null ? t.delayBeforeRetry : dbrDefault;
    if (type.equals("DNS_CHECK") && dbr.isZero()) {
      dbr = delayLoop;
    }
    return new CheckerTiming(delayLoop,
        t.connectTimeout != null ? t.connectTimeout : DEFAULT_CONNECT_TIMEOUT,
        (int) Math.min(Integer.MAX_VALUE, retry),
        dbr,
        t.warmup != null ? t.warmup : delayLoop,
        t.alpha != null && t.alpha,
        globals.checkerLogAllFailures());
  }

  private List<Checker> checker(Node n, InetAddress rsAddr, int rsPort, Timing inherited,
      String vhost) {
    String type = n.keyword();
    if (!v.block(n)) {
      return List.of();
    }
    if (n.argc() > 0) {
      v.error(n, type + " takes no arguments before its { } block");
    }
    Timing own = new Timing();
    EndpointDraft ep = new EndpointDraft();
    boolean network = !type.equals("MISC_CHECK") && !type.equals("FILE_CHECK")
        && !type.equals("BFD_CHECK");
    Boolean logAll = null;
    // type-specific state
    String httpVersion = "1.0";
    boolean fastRecovery = false;
    boolean enableSni = false;
    Optional<String> sniName = Optional.empty();
    String checkerVhost = null;
    List<Node> urls = new ArrayList<>();
    Script misc = null;
    Duration miscTimeout = null;
    boolean dynamic = false;
    String miscUser = null;
    String miscGroup = null;
    String dnsType = "SOA";
    String dnsName = ".";
    String helo = SmtpCheck.DEFAULT_HELO;
    List<Node> smtpHosts = new ArrayList<>();
    String payload = "";
    Optional<String> requireReply = Optional.empty();
    int minReply = 0;
    int maxReply = 255;
    String trackFile = null;
    Integer fileWeight = null;
    Boolean reverse = null;
    Node trackNode = null;
    String bfdName = null;

    for (Node c : n.children) {
      String k = c.keyword();
      // keepalived's FILE_CHECK and BFD_CHECK are event driven and take no timing (BFD: alpha
      // only); MISC_CHECK has misc_timeout instead of connect_timeout.
      boolean timed = switch (type) {
        case "FILE_CHECK" -> false;
        case "BFD_CHECK" -> k.equals("alpha");
        case "MISC_CHECK" -> !k.equals("connect_timeout");
        default -> true;
      };
      if (timed && timing(c, own, true)) {
        continue;
      }
      if (network && endpoint(c, ep)) {
        continue;
      }
      if (k.equals("log_all_failures") && !type.equals("FILE_CHECK") && !type.equals("BFD_CHECK")) {
        if (v.args(c, 0, 1)) {
          logAll = v.bool(c, 1);
        }
        continue;
      }
      boolean handled = true;
      switch (type) {
        case "HTTP_GET":
        case "SSL_GET":
          switch (k) {
            case "url":
              if (v.block(c)) {
                urls.add(c);
              }
              break;
            case "http_protocol":
              if (v.args(c, 1, 1)) {
                String p = c.arg(1);
                if (p.equals("1.0") || p.equals("1.1") || p.equalsIgnoreCase("1.0C")) {
                  httpVersion = p.toUpperCase(Locale.ROOT);
                } else {
                  v.error(c, "http_protocol: '" + p + "' is not 1.0, 1.0C or 1.1");
                }
              }
              break;
            case "virtualhost":
              if (v.args(c, 1, 1)) {
                checkerVhost = c.arg(1);
              }
              break;
            case "fast_recovery": {
              Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
              fastRecovery = b != null && b;
              break;
            }
            case "enable_sni": {
              Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
              enableSni = b != null && b;
              break;
            }
            case "sni_name":
              if (v.args(c, 1, 1)) {
                sniName = Optional.of(c.arg(1));
              }
              break;
            case "tls_compliant":
              v.warn(c, "tls_compliant is not supported by Fairway yet; ignored");
              break;
            default:
              handled = false;
          }
          break;
        case "MISC_CHECK":
          switch (k) {
            case "misc_path":
              misc = script(c);
              break;
            case "misc_timeout":
              if (v.args(c, 1, 1)) {
                miscTimeout = v.timer(c, 1, false);
              }
              break;
            case "misc_dynamic": {
              Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
              dynamic = b != null && b;
              break;
            }
            case "user":
              if (v.args(c, 1, 2)) {
                miscUser = c.arg(1);
                miscGroup = c.argc() > 1 ? c.arg(2) : null;
              }
              break;
            default:
              handled = false;
          }
          break;
        case "DNS_CHECK":
          switch (k) {
            case "type":
              if (v.args(c, 1, 1)) {
                String t = c.arg(1).toUpperCase(Locale.ROOT);
                if (DNS_TYPES.contains(t)) {
                  dnsType = t;
                } else {
                  v.error(c, "DNS_CHECK type '" + c.arg(1) + "' is not one of "
                      + new TreeSet<>(DNS_TYPES));
                }
              }
              break;
            case "name":
              if (v.args(c, 1, 1)) {
                dnsName = c.arg(1);
              }
              break;
            default:
              handled = false;
          }
          break;
        case "SMTP_CHECK":
          switch (k) {
            case "helo_name":
              if (v.args(c, 1, 1)) {
                helo = c.arg(1);
              }
              break;
            case "host":
              if (v.block(c)) {
                v.warn(c, "SMTP_CHECK host { } is deprecated; it becomes a separate SMTP check");
                smtpHosts.add(c);
              }
              break;
            default:
              handled = false;
          }
          break;
        case "UDP_CHECK":
          switch (k) {
            case "payload":
              if (v.args(c, 1, 1)) {
                payload = hex(c, c.arg(1), false);
              }
              break;
            case "require_reply":
              if (v.args(c, 0, 1)) {
                requireReply = Optional.of(c.argc() == 0 ? "" : hex(c, c.arg(1), true));
              }
              break;
            case "min_reply_length":
              if (v.args(c, 1, 1)) {
                Long l = v.number(c, 1, 0, 65535, "length");
                minReply = l == null ? minReply : l.intValue();
              }
              break;
            case "max_reply_length":
              if (v.args(c, 1, 1)) {
                Long l = v.number(c, 1, 0, 65535, "length");
                maxReply = l == null ? maxReply : l.intValue();
              }
              break;
            default:
              handled = false;
          }
          break;
        case "FILE_CHECK":
          switch (k) {
            case "track_file":
            case "file":
              if (v.args(c, 1, 1)) {
                trackFile = c.arg(1);
                trackNode = c;
              }
              break;
            case "weight":
              if (v.args(c, 1, 2)) {
                Long w = signed(c, 1, -INT32_MAX, INT32_MAX, "weight");
                fileWeight = w == null ? null : w.intValue();
                if (c.argc() == 2) {
                  if (c.arg(2).equals("reverse")) {
                    reverse = true;
                  } else if (c.arg(2).equals("noreverse")) {
                    reverse = false;
                  } else {
                    v.error(c, "weight: expected 'reverse' or 'noreverse', got '" + c.arg(2) + "'");
                  }
                }
              }
              break;
            default:
              handled = false;
          }
          break;
        case "BFD_CHECK":
          if (k.equals("name")) {
            if (v.args(c, 1, 1)) {
              bfdName = c.arg(1);
            }
          } else {
            handled = false;
          }
          break;
        default:
          handled = false;
      }
      if (!handled) {
        unknown(c, checkerKeywords(type), type);
      }
    }

    Timing t = own.over(inherited);
    if (type.equals("FILE_CHECK") || type.equals("BFD_CHECK")) {
      // Nothing is polled, so inherited polling values would only be noise.
      t = own;
      t.alpha = type.equals("BFD_CHECK") ? (own.alpha != null ? own.alpha : inherited.alpha) : null;
    } else if (type.equals("MISC_CHECK")) {
      t.connectTimeout = null;
    }
    CheckerTiming ct = resolveTiming(t, type);
    if (logAll != null) {
      ct = new CheckerTiming(ct.delayLoop(), ct.connectTimeout(), ct.retry(),
          ct.delayBeforeRetry(), ct.warmup(), ct.alpha(), logAll);
    }
    Location l = loc(n);
    switch (type) {
      case "TCP_CHECK":
        return List.of(new TcpCheck(l, ct, resolve(n, ep, rsAddr, rsPort, true)));
      case "PING_CHECK":
        return List.of(new PingCheck(l, ct, resolve(n, ep, rsAddr, rsPort, false)));
      case "HTTP_GET":
      case "SSL_GET": {
        String vh = checkerVhost != null ? checkerVhost : vhost;
        List<UrlCheck> us = new ArrayList<>();
        for (Node u : urls) {
          UrlCheck uc = url(u, vh);
          if (uc != null) {
            us.add(uc);
          }
        }
        if (urls.isEmpty()) {
          v.warn(n, type + " has no url - checker ignored, as keepalived does");
          return List.of();
        }
        return List.of(new HttpCheck(l, ct, resolve(n, ep, rsAddr, rsPort, true),
            type.equals("SSL_GET"), httpVersion, us, fastRecovery, enableSni, sniName));
      }
      case "MISC_CHECK":
        if (misc == null) {
          v.error(n, "MISC_CHECK needs misc_path");
          return List.of();
        }
        if (miscUser != null) {
          misc = new Script(misc.command(), misc.argv(), Optional.of(miscUser),
              Optional.ofNullable(miscGroup));
        }
        return List.of(new MiscCheck(l, ct, misc, miscTimeout != null ? miscTimeout
            : ct.delayLoop(), dynamic));
      case "DNS_CHECK":
        return List.of(new DnsCheck(l, ct, resolve(n, ep, rsAddr, rsPort, true), dnsType, dnsName));
      case "SMTP_CHECK": {
        List<Checker> out = new ArrayList<>();
        if (smtpHosts.isEmpty()) {
          out.add(new SmtpCheck(l, ct, resolve(n, ep, rsAddr, rsPort, true), helo));
        }
        for (Node h : smtpHosts) {
          EndpointDraft he = new EndpointDraft();
          he.ip = ep.ip;
          he.port = ep.port;
          he.bindTo = ep.bindTo;
          he.bindPort = ep.bindPort;
          he.bindIf = ep.bindIf;
          he.fwmark = ep.fwmark;
          for (Node c : h.children) {
            if (!endpoint(c, he)) {
              unknown(c, ENDPOINT, "SMTP_CHECK host");
            }
          }
          out.add(new SmtpCheck(loc(h), ct, resolve(h, he, rsAddr, rsPort, true), helo));
        }
        return out;
      }
      case "UDP_CHECK":
        if (minReply > maxReply) {
          v.error(n, "UDP_CHECK min_reply_length " + minReply + " is above max_reply_length "
              + maxReply);
        }
        return List.of(new UdpCheck(l, ct, resolve(n, ep, rsAddr, rsPort, true), payload,
            requireReply, minReply, maxReply));
      case "FILE_CHECK": {
        if (trackFile == null) {
          v.error(n, "FILE_CHECK needs track_file NAME");
          return List.of();
        }
        TrackFile tf = trackFiles.get(trackFile);
        if (tf == null) {
          Optional<String> s = Keywords.suggest(trackFile, trackFiles.keySet());
          v.error(trackNode, "track_file '" + trackFile + "' is not defined (define it at the top "
              + "level; keepalived needs it before use)" + s.map(x -> " (did you mean '" + x + "'?)").orElse(""));
          return List.of();
        }
        return List.of(new FileCheck(l, ct, trackFile, fileWeight != null ? fileWeight : tf.weight(),
            reverse != null ? reverse : tf.reverse()));
      }
      case "BFD_CHECK":
        if (bfdName == null) {
          v.error(n, "BFD_CHECK needs name BFD_INSTANCE");
          return List.of();
        }
        return List.of(new BfdCheck(l, ct, bfdName));
      default:
        return List.of();
    }
  }

  private static Set<String> checkerKeywords(String type) {
    Set<String> base = new HashSet<>(CHECKER_COMMON);
    if (type.equals("FILE_CHECK")) {
      base.clear();
    } else if (type.equals("BFD_CHECK")) {
      base = new HashSet<>(Set.of("alpha"));
    } else if (type.equals("MISC_CHECK")) {
      base.remove("connect_timeout");
    }
    if (!Set.of("MISC_CHECK", "FILE_CHECK", "BFD_CHECK").contains(type)) {
      base.addAll(ENDPOINT);
    }
    base.addAll(switch (type) {
      case "HTTP_GET", "SSL_GET" -> Set.of("url", "http_protocol", "virtualhost", "fast_recovery",
          "enable_sni", "sni_name", "tls_compliant");
      case "MISC_CHECK" -> Set.of("misc_path", "misc_timeout", "misc_dynamic", "user");
      case "DNS_CHECK" -> Set.of("type", "name");
      case "SMTP_CHECK" -> Set.of("helo_name", "host");
      case "UDP_CHECK" -> Set.of("payload", "require_reply", "min_reply_length",
          "max_reply_length");
      case "FILE_CHECK" -> Set.of("track_file", "weight");
      case "BFD_CHECK" -> Set.of("name");
      default -> Set.of();
    });
    return base;
  }

  private String hex(Node c, String s, boolean wildcards) {
    String h = s.toLowerCase(Locale.ROOT);
    if (h.startsWith("0x")) {
      h = h.substring(2);
    }
    if (!h.matches(wildcards ? "[0-9a-fx]*" : "[0-9a-f]*") || h.length() % 2 != 0) {
      v.error(c, c.keyword() + ": '" + s + "' is not an even number of hex digits"
          + (wildcards ? " (x for any nibble)" : ""));
      return "";
    }
    return h;
  }

  private UrlCheck url(Node u, String vhost) {
    if (u.argc() > 0) {
      v.error(u, "url takes no arguments before its { } block");
    }
    String path = null;
    Optional<String> digest = Optional.empty();
    List<StatusRange> codes = new ArrayList<>();
    String urlVhost = null;
    Optional<String> regex = Optional.empty();
    boolean noMatch = false;
    for (Node c : u.children) {
      switch (c.keyword()) {
        case "path":
          if (v.args(c, 1, 1)) {
            path = c.arg(1);
          }
          break;
        case "digest":
          if (v.args(c, 1, 1)) {
            if (c.arg(1).matches("[0-9A-Fa-f]{32}")) {
              digest = Optional.of(c.arg(1).toLowerCase(Locale.ROOT));
            } else {
              v.error(c, "digest: '" + c.arg(1) + "' is not an MD5 in hex (32 digits)");
            }
          }
          break;
        case "status_code":
          if (v.args(c, 1, 100)) {
            for (int i = 1; i <= c.argc(); i++) {
              StatusRange r = status(c, c.arg(i));
              if (r != null) {
                codes.add(r);
              }
            }
          }
          break;
        case "virtualhost":
          if (v.args(c, 1, 1)) {
            urlVhost = c.arg(1);
          }
          break;
        case "regex":
          if (v.args(c, 1, 1)) {
            try {
              java.util.regex.Pattern.compile(c.arg(1));
              regex = Optional.of(c.arg(1));
            } catch (java.util.regex.PatternSyntaxException e) {
              v.error(c, "regex: " + e.getDescription());
            }
          }
          break;
        case "regex_no_match": {
          Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
          noMatch = b != null && b;
          break;
        }
        case "regex_options":
        case "regex_min_offset":
        case "regex_max_offset":
        case "regex_stack":
          v.warn(c, c.keyword() + " is not supported by Fairway yet; ignored");
          break;
        default:
          unknown(c, URL, "url");
      }
    }
    if (path == null) {
      v.error(u, "url needs a path");
      return null;
    }
    if (codes.isEmpty()) {
      codes.add(StatusRange.DEFAULT);
    }
    return new UrlCheck(path, digest, codes,
        Optional.ofNullable(urlVhost != null ? urlVhost : vhost), regex, noMatch);
  }

  private StatusRange status(Node c, String s) {
    String[] p = s.split("-", -1);
    if (p.length > 2) {
      v.error(c, "status_code: '" + s + "' is not CODE or FROM-TO");
      return null;
    }
    Long a = Values.parseLong(p[0]);
    Long b = p.length == 2 ? Values.parseLong(p[1]) : a;
    if (a == null || b == null || a < 100 || b > 599 || a > b) {
      v.error(c, "status_code: '" + s + "' is not a status code or range within 100-599");
      return null;
    }
    return new StatusRange(a.intValue(), b.intValue());
  }
}
