package io.fairway.config;

import io.fairway.config.model.Addresses;
import io.fairway.config.model.BfdCheck;
import io.fairway.config.model.Checker;
import io.fairway.config.model.CheckerTiming;
import io.fairway.config.model.DnsCheck;
import io.fairway.config.model.Endpoint;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.Location;
import io.fairway.config.model.MiscCheck;
import io.fairway.config.model.PingCheck;
import io.fairway.config.model.RegexOption;
import io.fairway.config.model.Script;
import io.fairway.config.model.SmtpCheck;
import io.fairway.config.model.StatusRange;
import io.fairway.config.model.TcpCheck;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.UdpCheck;
import io.fairway.config.model.UrlCheck;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The checker blocks of a real_server. Each checker leaves here with its effective timing and
 * endpoint resolved (checker, else real_server, else virtual_server, else the checker type's
 * default), so the check engine never looks further than the checker itself.
 */
final class CheckerParser {
  static final Set<String> CHECKERS =
      Set.of(
          "TCP_CHECK",
          "HTTP_GET",
          "SSL_GET",
          "MISC_CHECK",
          "DNS_CHECK",
          "SMTP_CHECK",
          "UDP_CHECK",
          "PING_CHECK",
          "FILE_CHECK",
          "BFD_CHECK");
  static final Set<String> ENDPOINT =
      Set.of("connect_ip", "connect_port", "bindto", "bind_port", "bind_if", "fwmark");
  static final Set<String> CHECKER_COMMON =
      Set.of(
          "delay_loop",
          "connect_timeout",
          "retry",
          "delay_before_retry",
          "warmup",
          "alpha",
          "log_all_failures",
          "nb_get_retry",
          "rise",
          "fall");
  static final Set<String> DNS_TYPES =
      Set.of("A", "NS", "CNAME", "SOA", "MX", "TXT", "AAAA", "RRSIG", "DNSKEY");

  private final Values v;
  private final Map<String, TrackFile> trackFiles;
  private final boolean logAllFailures;

  CheckerParser(Values v, Map<String, TrackFile> trackFiles, boolean logAllFailures) {
    this.v = v;
    this.trackFiles = trackFiles;
    this.logAllFailures = logAllFailures;
  }

  private static final class EndpointDraft {
    InetAddress ip;
    Integer port;
    InetAddress bindTo;
    Node bindToNode;
    int bindPort;
    String bindIf;
    long fwmark;
  }

  /** Linux's IFNAMSIZ less the terminating NUL; keepalived refuses longer names too. */
  static final int MAX_IFNAME = 15;

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
          e.bindToNode = c;
        }
        return true;
      case "bind_port":
        if (v.args(c, 1, 1)) {
          // keepalived's range: 0 would mean "any port", which is what leaving bind_port out says.
          Long p = v.number(c, 1, 1, 65535, "bind_port");
          e.bindPort = p == null ? 0 : p.intValue();
        }
        return true;
      case "bind_if":
        if (v.args(c, 1, 1)) {
          String name = c.arg(1);
          if (name.isEmpty() || name.length() > MAX_IFNAME || name.contains("/")) {
            v.error(
                c,
                "bind_if '"
                    + name
                    + "' is not an interface name (at most "
                    + MAX_IFNAME
                    + " characters, no '/')");
          } else {
            e.bindIf = name;
            if (!interfaceExists(name)) {
              // A warning, not an error: a VLAN or tunnel interface may come up after we start;
              // until
              // it does, every check on it fails with "No such device".
              v.warn(c, "bind_if " + name + ": no such interface on this host now");
            }
          }
        }
        return true;
      case "fwmark":
        if (v.args(c, 1, 1)) {
          Long m = v.number(c, 1, 0, Values.UINT32_MAX, "fwmark");
          e.fwmark = m == null ? 0 : m;
        }
        return true;
      default:
        return false;
    }
  }

  private Endpoint resolve(
      Node n, EndpointDraft e, InetAddress rsAddr, int rsPort, boolean needPort) {
    int port = e.port != null ? e.port : rsPort;
    if (needPort && port == 0) {
      v.error(n, n.keyword() + " has no port to check: the real_server has none, set connect_port");
    }
    InetAddress target = e.ip != null ? e.ip : rsAddr;
    if (e.bindTo != null
        && target != null
        && (e.bindTo instanceof Inet6Address) != (target instanceof Inet6Address)) {
      // keepalived reports this and drops the bindto; a check from another source than configured
      // could pass where traffic fails, so we refuse it.
      v.error(
          e.bindToNode,
          "bindto "
              + Addresses.format(e.bindTo)
              + " is not of the address family of "
              + "the check's target "
              + Addresses.format(target));
    }
    if (target instanceof Inet6Address t6
        && t6.isLinkLocalAddress()
        && t6.getScopeId() == 0
        && e.bindIf == null) {
      v.error(
          n, n.keyword() + ": link-local target " + Addresses.format(target) + " needs bind_if");
    }
    return new Endpoint(
        target,
        port,
        Optional.ofNullable(e.bindTo),
        e.bindPort,
        Optional.ofNullable(e.bindIf),
        e.fwmark);
  }

  private static boolean interfaceExists(String name) {
    try {
      return NetworkInterface.getByName(name) != null;
    } catch (SocketException | RuntimeException e) {
      return true; // cannot tell: say nothing rather than warn wrongly
    }
  }

  private CheckerTiming resolveTiming(InheritedTiming t, String type) {
    Duration delayLoop = t.delayLoop != null ? t.delayLoop : ModelBuilder.DEFAULT_DELAY_LOOP;
    long retryDefault =
        switch (type) {
          case "DNS_CHECK" -> 3;
          case "MISC_CHECK" -> 0;
          default -> 1;
        };
    Duration dbrDefault =
        switch (type) {
          case "HTTP_GET", "SSL_GET" -> Duration.ofSeconds(3);
          case "DNS_CHECK" -> delayLoop;
          default -> Duration.ofSeconds(1);
        };
    long retry = t.retry != null ? t.retry : retryDefault;
    Duration dbr = t.delayBeforeRetry != null ? t.delayBeforeRetry : dbrDefault;
    if (type.equals("DNS_CHECK") && dbr.isZero()) {
      dbr = delayLoop;
    }
    return new CheckerTiming(
        delayLoop,
        t.connectTimeout != null ? t.connectTimeout : ModelBuilder.DEFAULT_CONNECT_TIMEOUT,
        (int) Math.min(Integer.MAX_VALUE, retry),
        dbr,
        t.warmup != null ? t.warmup : delayLoop,
        t.alpha != null && t.alpha,
        logAllFailures,
        t.rise != null ? t.rise.intValue() : 1);
  }

  /** A checker block as written: the state its type's keyword table fills. */
  private static final class Draft {
    final CheckerParser p;
    final Values v;
    final InheritedTiming own = new InheritedTiming();
    final EndpointDraft ep = new EndpointDraft();
    Boolean logAll;
    // HTTP_GET and SSL_GET
    String httpVersion = "1.0";
    boolean fastRecovery;
    boolean enableSni;
    Optional<String> sniName = Optional.empty();
    boolean verifyCert;
    Node verifyNode;
    Optional<String> caFile = Optional.empty();
    Node caNode;
    String vhost;
    final List<Node> urls = new ArrayList<>();
    // MISC_CHECK
    Script misc;
    Duration miscTimeout;
    boolean dynamic;
    String miscUser;
    String miscGroup;
    // DNS_CHECK
    String dnsType = "SOA";
    String dnsName = ".";
    // SMTP_CHECK
    String helo = SmtpCheck.DEFAULT_HELO;
    final List<Node> smtpHosts = new ArrayList<>();
    // UDP_CHECK
    String payload = "";
    Optional<String> requireReply = Optional.empty();
    int minReply = 0;
    int maxReply = 255;
    // FILE_CHECK
    String trackFile;
    Integer fileWeight;
    Boolean reverse;
    Node trackNode;
    // BFD_CHECK
    String bfdName;

    Draft(CheckerParser p) {
      this.p = p;
      this.v = p.v;
    }
  }

  /** One keyword table per checker type; each is also the type's list of known keywords. */
  private static final Map<String, KeywordTable<Draft>> TABLES = tables();

  private static Map<String, KeywordTable<Draft>> tables() {
    Map<String, KeywordTable<Draft>> m = new HashMap<>();
    for (String type : CHECKERS) {
      KeywordTable<Draft> t = new KeywordTable<>();
      common(t, type);
      switch (type) {
        case "HTTP_GET", "SSL_GET" -> http(t);
        case "MISC_CHECK" -> misc(t);
        case "DNS_CHECK" -> dns(t);
        case "SMTP_CHECK" -> smtp(t);
        case "UDP_CHECK" -> udp(t);
        case "FILE_CHECK" -> file(t);
        case "BFD_CHECK" -> t.on("name", (d, n) -> d.bfdName = word(d, n, d.bfdName));
        default -> {}
      }
      m.put(type, t);
    }
    return Map.copyOf(m);
  }

  /** The keywords of a checker block of {@code type}, for suggestions. */
  static Set<String> known(String type) {
    return TABLES.get(type).known();
  }

  private static boolean network(String type) {
    return !type.equals("MISC_CHECK") && !type.equals("FILE_CHECK") && !type.equals("BFD_CHECK");
  }

  /** Timing, endpoint and log_all_failures, as far as the type takes them. */
  private static void common(KeywordTable<Draft> t, String type) {
    boolean eventDriven = type.equals("FILE_CHECK") || type.equals("BFD_CHECK");
    for (String k : CHECKER_COMMON) {
      // keepalived's FILE_CHECK and BFD_CHECK are event driven and take no timing (BFD: alpha
      // only); MISC_CHECK has misc_timeout instead of connect_timeout.
      boolean taken =
          switch (type) {
            case "FILE_CHECK" -> false;
            case "BFD_CHECK" -> k.equals("alpha");
            case "MISC_CHECK" -> !k.equals("connect_timeout");
            default -> true;
          };
      if (k.equals("log_all_failures")) {
        if (!eventDriven) {
          t.on(
              k,
              (d, n) -> {
                if (d.v.args(n, 0, 1)) {
                  d.logAll = d.v.bool(n, 1);
                }
              });
        }
      } else if (taken) {
        t.on(k, (d, n) -> InheritedTiming.read(n, d.own, true, d.v));
      }
    }
    if (network(type)) {
      t.on(List.copyOf(ENDPOINT), (d, n) -> d.p.endpoint(n, d.ep));
    }
  }

  private static void http(KeywordTable<Draft> t) {
    t.on(
        "url",
        (d, n) -> {
          if (d.v.block(n)) {
            d.urls.add(n);
          }
        });
    t.on(
        "http_protocol",
        (d, n) -> {
          if (d.v.args(n, 1, 1)) {
            String p = n.arg(1);
            if (p.equals("1.0") || p.equals("1.1") || p.equalsIgnoreCase("1.0C")) {
              d.httpVersion = p.toUpperCase(Locale.ROOT);
            } else {
              d.v.error(n, "http_protocol: '" + p + "' is not 1.0, 1.0C or 1.1");
            }
          }
        });
    t.on("virtualhost", (d, n) -> d.vhost = word(d, n, d.vhost));
    t.on("fast_recovery", (d, n) -> d.fastRecovery = flag(d, n));
    t.on("enable_sni", (d, n) -> d.enableSni = flag(d, n));
    t.on(
        "sni_name",
        (d, n) -> {
          if (d.v.args(n, 1, 1)) {
            d.sniName = Optional.of(n.arg(1));
          }
        });
    // keepalived's opt-in to end TLS with close_notify: Fairway's TLS (Netty) always does.
    t.on(
        "tls_compliant",
        (d, n) -> {
          if (d.v.args(n, 0, 1)) {
            d.v.bool(n, 1);
          }
        });
    t.on(
        "verify_cert",
        (d, n) -> {
          d.verifyCert = flag(d, n);
          d.verifyNode = n;
        });
    t.on(
        "ca_file",
        (d, n) -> {
          if (d.v.args(n, 1, 1)) {
            d.caFile = Optional.of(n.arg(1));
            d.caNode = n;
          }
        });
  }

  private static void misc(KeywordTable<Draft> t) {
    t.on("misc_path", (d, n) -> d.misc = d.v.script(n));
    t.on(
        "misc_timeout",
        (d, n) -> {
          if (d.v.args(n, 1, 1)) {
            d.miscTimeout = d.v.timer(n, 1, false);
          }
        });
    t.on("misc_dynamic", (d, n) -> d.dynamic = flag(d, n));
    t.on(
        "user",
        (d, n) -> {
          if (d.v.args(n, 1, 2)) {
            d.miscUser = n.arg(1);
            d.miscGroup = n.argc() > 1 ? n.arg(2) : null;
          }
        });
  }

  private static void dns(KeywordTable<Draft> t) {
    t.on(
        "type",
        (d, n) -> {
          if (d.v.args(n, 1, 1)) {
            String type = n.arg(1).toUpperCase(Locale.ROOT);
            if (DNS_TYPES.contains(type)) {
              d.dnsType = type;
            } else {
              d.v.error(
                  n, "DNS_CHECK type '" + n.arg(1) + "' is not one of " + new TreeSet<>(DNS_TYPES));
            }
          }
        });
    t.on("name", (d, n) -> d.dnsName = word(d, n, d.dnsName));
  }

  private static void smtp(KeywordTable<Draft> t) {
    t.on("helo_name", (d, n) -> d.helo = word(d, n, d.helo));
    t.on(
        "host",
        (d, n) -> {
          if (d.v.block(n)) {
            d.v.warn(n, "SMTP_CHECK host { } is deprecated; it becomes a separate SMTP check");
            d.smtpHosts.add(n);
          }
        });
  }

  private static void udp(KeywordTable<Draft> t) {
    t.on(
        "payload",
        (d, n) -> {
          if (d.v.args(n, 1, 1)) {
            d.payload = d.p.hex(n, n.arg(1), false);
          }
        });
    t.on(
        "require_reply",
        (d, n) -> {
          if (d.v.args(n, 0, 1)) {
            d.requireReply = Optional.of(n.argc() == 0 ? "" : d.p.hex(n, n.arg(1), true));
          }
        });
    t.on("min_reply_length", (d, n) -> d.minReply = length(d, n, d.minReply));
    t.on("max_reply_length", (d, n) -> d.maxReply = length(d, n, d.maxReply));
  }

  private static void file(KeywordTable<Draft> t) {
    KeywordTable.Handler<Draft> track =
        (d, n) -> {
          if (d.v.args(n, 1, 1)) {
            d.trackFile = n.arg(1);
            d.trackNode = n;
          }
        };
    t.on("track_file", track).unlisted("file", track);
    t.on(
        "weight",
        (d, n) -> {
          if (!d.v.args(n, 1, 2)) {
            return;
          }
          Long w = d.v.signed(n, 1, -Values.INT32_MAX, Values.INT32_MAX, "weight");
          d.fileWeight = w == null ? null : w.intValue();
          if (n.argc() == 2) {
            if (n.arg(2).equals("reverse")) {
              d.reverse = true;
            } else if (n.arg(2).equals("noreverse")) {
              d.reverse = false;
            } else {
              d.v.error(n, "weight: expected 'reverse' or 'noreverse', got '" + n.arg(2) + "'");
            }
          }
        });
  }

  /** A one-word keyword's value, or {@code was} when the line is refused. */
  private static String word(Draft d, Node n, String was) {
    return d.v.args(n, 1, 1) ? n.arg(1) : was;
  }

  /** An optional yes/no that is false unless it reads as true. */
  private static boolean flag(Draft d, Node n) {
    Boolean b = d.v.args(n, 0, 1) ? d.v.bool(n, 1) : null;
    return b != null && b;
  }

  private static int length(Draft d, Node n, int was) {
    if (!d.v.args(n, 1, 1)) {
      return was;
    }
    Long l = d.v.number(n, 1, 0, 65535, "length");
    return l == null ? was : l.intValue();
  }

  List<Checker> checker(
      Node n, InetAddress rsAddr, int rsPort, InheritedTiming inherited, String vhost) {
    String type = n.keyword();
    if (!v.block(n)) {
      return List.of();
    }
    if (n.argc() > 0) {
      v.error(n, type + " takes no arguments before its { } block");
    }
    KeywordTable<Draft> table = TABLES.get(type);
    Draft d = new Draft(this);
    for (Node c : n.children) {
      if (!table.dispatch(d, c)) {
        v.unknown(c, table.known(), type);
      }
    }
    CheckerTiming ct = timing(d, type, inherited);
    Location l = Values.loc(n);
    return switch (type) {
      case "TCP_CHECK" -> List.of(new TcpCheck(l, ct, resolve(n, d.ep, rsAddr, rsPort, true)));
      case "PING_CHECK" -> List.of(new PingCheck(l, ct, resolve(n, d.ep, rsAddr, rsPort, false)));
      case "HTTP_GET", "SSL_GET" -> http(n, d, ct, rsAddr, rsPort, vhost);
      case "MISC_CHECK" -> misc(n, d, ct);
      case "DNS_CHECK" ->
          List.of(
              new DnsCheck(l, ct, resolve(n, d.ep, rsAddr, rsPort, true), d.dnsType, d.dnsName));
      case "SMTP_CHECK" -> smtp(n, d, ct, rsAddr, rsPort);
      case "UDP_CHECK" -> udp(n, d, ct, rsAddr, rsPort);
      case "FILE_CHECK" -> file(n, d, ct);
      case "BFD_CHECK" -> bfd(n, d, ct);
      default -> List.of();
    };
  }

  /** The checker's timing: its own over what it inherits, as far as its type is timed. */
  private CheckerTiming timing(Draft d, String type, InheritedTiming inherited) {
    InheritedTiming own = d.own;
    InheritedTiming t = own.over(inherited);
    if (type.equals("FILE_CHECK") || type.equals("BFD_CHECK")) {
      // Nothing is polled, so inherited polling values would only be noise.
      t = own;
      t.alpha = type.equals("BFD_CHECK") ? (own.alpha != null ? own.alpha : inherited.alpha) : null;
    } else if (type.equals("MISC_CHECK")) {
      t.connectTimeout = null;
    }
    CheckerTiming ct = resolveTiming(t, type);
    if (d.logAll != null) {
      ct =
          new CheckerTiming(
              ct.delayLoop(),
              ct.connectTimeout(),
              ct.retry(),
              ct.delayBeforeRetry(),
              ct.warmup(),
              ct.alpha(),
              d.logAll,
              ct.rise());
    }
    return ct;
  }

  private List<Checker> http(
      Node n, Draft d, CheckerTiming ct, InetAddress rsAddr, int rsPort, String vhost) {
    String type = n.keyword();
    String vh = d.vhost != null ? d.vhost : vhost;
    List<UrlCheck> us = new ArrayList<>();
    for (Node u : d.urls) {
      UrlCheck uc = url(u, vh);
      if (uc != null) {
        us.add(uc);
      }
    }
    if (!type.equals("SSL_GET") && (d.verifyNode != null || d.caNode != null)) {
      v.error(
          d.verifyNode != null ? d.verifyNode : d.caNode,
          "verify_cert and ca_file apply to SSL_GET only; HTTP_GET has no certificate");
    }
    if (d.caNode != null && !d.verifyCert) {
      v.warn(
          d.caNode,
          "ca_file without verify_cert: the certificate is not verified (keepalived"
              + " never does); add verify_cert to use it");
    }
    if (d.urls.isEmpty()) {
      v.warn(n, type + " has no url - checker ignored, as keepalived does");
      return List.of();
    }
    return List.of(
        new HttpCheck(
            Values.loc(n),
            ct,
            resolve(n, d.ep, rsAddr, rsPort, true),
            type.equals("SSL_GET"),
            d.httpVersion,
            us,
            d.fastRecovery,
            d.enableSni,
            d.sniName,
            d.verifyCert,
            d.caFile));
  }

  private List<Checker> misc(Node n, Draft d, CheckerTiming ct) {
    Script misc = d.misc;
    if (misc == null) {
      v.error(n, "MISC_CHECK needs misc_path");
      return List.of();
    }
    if (d.miscUser != null) {
      misc =
          new Script(
              misc.command(),
              misc.argv(),
              Optional.of(d.miscUser),
              Optional.ofNullable(d.miscGroup));
    }
    return List.of(
        new MiscCheck(
            Values.loc(n),
            ct,
            misc,
            d.miscTimeout != null ? d.miscTimeout : ct.delayLoop(),
            d.dynamic));
  }

  private List<Checker> smtp(Node n, Draft d, CheckerTiming ct, InetAddress rsAddr, int rsPort) {
    List<Checker> out = new ArrayList<>();
    EndpointDraft ep = d.ep;
    if (d.smtpHosts.isEmpty()) {
      out.add(new SmtpCheck(Values.loc(n), ct, resolve(n, ep, rsAddr, rsPort, true), d.helo));
    }
    for (Node h : d.smtpHosts) {
      EndpointDraft he = new EndpointDraft();
      he.ip = ep.ip;
      he.port = ep.port;
      he.bindTo = ep.bindTo;
      he.bindToNode = ep.bindToNode;
      he.bindPort = ep.bindPort;
      he.bindIf = ep.bindIf;
      he.fwmark = ep.fwmark;
      for (Node c : h.children) {
        if (!endpoint(c, he)) {
          v.unknown(c, ENDPOINT, "SMTP_CHECK host");
        }
      }
      out.add(new SmtpCheck(Values.loc(h), ct, resolve(h, he, rsAddr, rsPort, true), d.helo));
    }
    return out;
  }

  private List<Checker> udp(Node n, Draft d, CheckerTiming ct, InetAddress rsAddr, int rsPort) {
    if (d.minReply > d.maxReply) {
      v.error(
          n,
          "UDP_CHECK min_reply_length " + d.minReply + " is above max_reply_length " + d.maxReply);
    }
    return List.of(
        new UdpCheck(
            Values.loc(n),
            ct,
            resolve(n, d.ep, rsAddr, rsPort, true),
            d.payload,
            d.requireReply,
            d.minReply,
            d.maxReply));
  }

  private List<Checker> file(Node n, Draft d, CheckerTiming ct) {
    String trackFile = d.trackFile;
    if (trackFile == null) {
      v.error(n, "FILE_CHECK needs track_file NAME");
      return List.of();
    }
    TrackFile tf = trackFiles.get(trackFile);
    if (tf == null) {
      Optional<String> s = Keywords.suggest(trackFile, trackFiles.keySet());
      v.error(
          d.trackNode,
          "track_file '"
              + trackFile
              + "' is not defined (define it at the top "
              + "level; keepalived needs it before use)"
              + s.map(x -> " (did you mean '" + x + "'?)").orElse(""));
      return List.of();
    }
    return List.of(
        new FileCheck(
            Values.loc(n),
            ct,
            trackFile,
            d.fileWeight != null ? d.fileWeight : tf.weight(),
            d.reverse != null ? d.reverse : tf.reverse()));
  }

  private List<Checker> bfd(Node n, Draft d, CheckerTiming ct) {
    if (d.bfdName == null) {
      v.error(n, "BFD_CHECK needs name BFD_INSTANCE");
      return List.of();
    }
    return List.of(new BfdCheck(Values.loc(n), ct, d.bfdName));
  }

  private String hex(Node c, String s, boolean wildcards) {
    String h = s.toLowerCase(Locale.ROOT);
    if (h.startsWith("0x")) {
      h = h.substring(2);
    }
    if (!h.matches(wildcards ? "[0-9a-fx]*" : "[0-9a-f]*") || h.length() % 2 != 0) {
      v.error(
          c,
          c.keyword()
              + ": '"
              + s
              + "' is not an even number of hex digits"
              + (wildcards ? " (x for any nibble)" : ""));
      return "";
    }
    return h;
  }

  /** A url block as written: the state its keyword table's handlers fill. */
  private static final class UrlDraft {
    final CheckerParser p;
    final Values v;
    String path;
    Optional<String> digest = Optional.empty();
    final List<StatusRange> codes = new ArrayList<>();
    String vhost;
    Optional<String> regex = Optional.empty();
    Node regexNode;
    boolean noMatch;
    final Set<RegexOption> options = EnumSet.noneOf(RegexOption.class);
    long minOffset;
    OptionalLong maxOffset = OptionalLong.empty();
    Node maxNode;

    UrlDraft(CheckerParser p) {
      this.p = p;
      this.v = p.v;
    }
  }

  private static final KeywordTable<UrlDraft> URL_TABLE = urlTable();

  /** The keywords of a url block, for suggestions. */
  static Set<String> urlKeywords() {
    return URL_TABLE.known();
  }

  private static KeywordTable<UrlDraft> urlTable() {
    KeywordTable<UrlDraft> t = new KeywordTable<>();
    t.on(
        "path",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            u.path = c.arg(1);
          }
        });
    t.on(
        "digest",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            if (c.arg(1).matches("[0-9A-Fa-f]{32}")) {
              u.digest = Optional.of(c.arg(1).toLowerCase(Locale.ROOT));
            } else {
              u.v.error(c, "digest: '" + c.arg(1) + "' is not an MD5 in hex (32 digits)");
            }
          }
        });
    t.on(
        "status_code",
        (u, c) -> {
          if (u.v.args(c, 1, 100)) {
            for (int i = 1; i <= c.argc(); i++) {
              StatusRange r = u.p.status(c, c.arg(i));
              if (r != null) {
                u.codes.add(r);
              }
            }
          }
        });
    t.on(
        "virtualhost",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            u.vhost = c.arg(1);
          }
        });
    regexKeywords(t);
    return t;
  }

  private static void regexKeywords(KeywordTable<UrlDraft> t) {
    t.on(
        "regex",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            u.regex = Optional.of(c.arg(1));
            u.regexNode = c;
          }
        });
    t.on(
        "regex_no_match",
        (u, c) -> {
          Boolean b = u.v.args(c, 0, 1) ? u.v.bool(c, 1) : null;
          u.noMatch = b != null && b;
        });
    t.on(
        "regex_options",
        (u, c) -> {
          if (u.v.args(c, 1, 100)) {
            for (int i = 1; i <= c.argc(); i++) {
              u.p.regexOption(c, c.arg(i), u.options);
            }
          }
        });
    t.on(
        "regex_min_offset",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            Long o = u.v.number(c, 1, 0, Long.MAX_VALUE - 1, "offset");
            u.minOffset = o == null ? u.minOffset : o;
          }
        });
    t.on(
        "regex_max_offset",
        (u, c) -> {
          if (u.v.args(c, 1, 1)) {
            Long o = u.v.number(c, 1, 0, Long.MAX_VALUE - 1, "offset");
            u.maxOffset = o == null ? u.maxOffset : OptionalLong.of(o);
            u.maxNode = c;
          }
        });
    // PCRE2's JIT stack size: java.util.regex has no such knob (its stack is the thread's).
    t.on(
        "regex_stack",
        (u, c) -> u.v.warn(c, "regex_stack has no meaning for Java regular expressions; ignored"));
  }

  private UrlCheck url(Node n, String vhost) {
    if (n.argc() > 0) {
      v.error(n, "url takes no arguments before its { } block");
    }
    UrlDraft u = new UrlDraft(this);
    for (Node c : n.children) {
      if (!URL_TABLE.dispatch(u, c)) {
        v.unknown(c, URL_TABLE.known(), "url");
      }
    }
    if (u.path == null) {
      v.error(n, "url needs a path");
      return null;
    }
    if (u.codes.isEmpty()) {
      u.codes.add(StatusRange.DEFAULT);
    }
    regex(n, u);
    return new UrlCheck(
        u.path,
        u.digest,
        u.codes,
        Optional.ofNullable(u.vhost != null ? u.vhost : vhost),
        u.regex,
        u.noMatch,
        u.options,
        u.minOffset,
        u.maxOffset);
  }

  /** The regex must compile; its options mean nothing without it. */
  private void regex(Node n, UrlDraft u) {
    if (u.regexNode != null) {
      int flags = 0;
      for (RegexOption o : u.options) {
        flags |= o.javaFlags();
      }
      try {
        Pattern.compile(u.regex.get(), flags);
      } catch (PatternSyntaxException e) {
        v.error(
            u.regexNode,
            "regex: "
                + e.getDescription()
                + " near index "
                + e.getIndex()
                + " of '"
                + u.regex.get()
                + "'");
      }
    } else if (u.noMatch || !u.options.isEmpty() || u.minOffset != 0 || u.maxOffset.isPresent()) {
      // keepalived drops these with a log line; say so where the operator can see it.
      v.warn(n, "regex_no_match/regex_options/regex_*_offset without regex; ignored");
      u.noMatch = false;
      u.options.clear();
      u.minOffset = 0;
      u.maxOffset = OptionalLong.empty();
    }
    if (u.maxOffset.isPresent() && u.minOffset > u.maxOffset.getAsLong()) {
      v.error(
          u.maxNode,
          "regex_max_offset "
              + u.maxOffset.getAsLong()
              + " is below regex_min_offset "
              + u.minOffset
              + ": no match could ever start in between");
    }
  }

  private void regexOption(Node c, String name, Set<RegexOption> into) {
    Optional<RegexOption> o = RegexOption.of(name);
    if (o.isEmpty()) {
      List<String> all = new ArrayList<>();
      for (RegexOption x : RegexOption.values()) {
        all.add(x.keyword());
      }
      v.error(
          c,
          "regex_options: unknown option '"
              + name
              + "'"
              + Keywords.suggest(name, all).map(x -> " (did you mean '" + x + "'?)").orElse(""));
    } else if (!o.get().supported()) {
      v.error(
          c,
          "regex_options: '"
              + name
              + "' has no Java equivalent; Fairway supports "
              + "caseless dotall extended firstline multiline ucp utf and PCRE2's no-op tuning options");
    } else {
      into.add(o.get());
    }
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
