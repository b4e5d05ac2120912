package io.fairway.config;

import io.fairway.config.model.BfdCheck;
import io.fairway.config.model.CheckerTiming;
import io.fairway.config.model.DnsCheck;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.HealthCheck;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.MiscCheck;
import io.fairway.config.model.PingCheck;
import io.fairway.config.model.SmtpCheck;
import io.fairway.config.model.TcpCheck;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.UdpCheck;
import io.fairway.config.model.UrlCheck;
import io.fairway.config.model.base.Location;
import io.fairway.config.model.base.Script;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

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
  static final Set<String> ENDPOINT = CheckEndpointBlock.KEYWORDS;
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

  /** A checker block as written: the state its type's keyword table fills. */
  private static final class Draft {
    final CheckerParser p;
    final Values v;
    final InheritedTiming own = new InheritedTiming();
    final CheckEndpointBlock ep;
    @Nullable Boolean logAll;
    // HTTP_GET and SSL_GET
    String httpVersion = "1.0";
    boolean fastRecovery;
    boolean enableSni;
    Optional<String> sniName = Optional.empty();
    boolean verifyCert;
    @Nullable Node verifyNode;
    Optional<String> caFile = Optional.empty();
    @Nullable Node caNode;
    @Nullable String vhost;
    final List<Node> urls = new ArrayList<>();
    // MISC_CHECK
    @Nullable Script misc;
    @Nullable Duration miscTimeout;
    boolean dynamic;
    @Nullable String miscUser;
    @Nullable String miscGroup;
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
    @Nullable String trackFile;
    @Nullable Integer fileWeight;
    @Nullable Boolean reverse;
    @Nullable Node trackNode;
    // BFD_CHECK
    @Nullable String bfdName;

    Draft(CheckerParser p) {
      this.p = p;
      this.v = p.v;
      this.ep = new CheckEndpointBlock(p.v);
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
        case "BFD_CHECK" -> t.on("name", (d, n) -> d.bfdName = wordOrNull(d, n, d.bfdName));
        default -> {}
      }
      m.put(type, t);
    }
    return Map.copyOf(m);
  }

  private static KeywordTable<Draft> table(String type) {
    return Objects.requireNonNull(TABLES.get(type), "callers pass checker keywords only");
  }

  /** The keywords of a checker block of {@code type}, for suggestions. */
  static Set<String> known(String type) {
    return table(type).known();
  }

  /** The keywords of a url block, for suggestions. */
  static Set<String> urlKeywords() {
    return UrlBlock.keywords();
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
      t.include(CheckEndpointBlock.TABLE, d -> d.ep);
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
    t.on("virtualhost", (d, n) -> d.vhost = wordOrNull(d, n, d.vhost));
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

  private static @Nullable String wordOrNull(Draft d, Node n, @Nullable String was) {
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

  List<HealthCheck> checker(
      Node n, InetAddress rsAddr, int rsPort, InheritedTiming inherited, @Nullable String vhost) {
    String type = n.keyword();
    if (!v.block(n)) {
      return List.of();
    }
    if (n.argc() > 0) {
      v.error(n, type + " takes no arguments before its { } block");
    }
    KeywordTable<Draft> table = table(type);
    Draft d = new Draft(this);
    for (Node c : n.block()) {
      if (!table.dispatch(d, c)) {
        v.unknown(c, table.known(), type);
      }
    }
    CheckerTiming ct = InheritedTiming.forChecker(d.own, inherited, type, d.logAll, logAllFailures);
    Location l = Values.loc(n);
    return switch (type) {
      case "TCP_CHECK" -> List.of(new TcpCheck(l, ct, d.ep.resolve(n, rsAddr, rsPort, true)));
      case "PING_CHECK" -> List.of(new PingCheck(l, ct, d.ep.resolve(n, rsAddr, rsPort, false)));
      case "HTTP_GET", "SSL_GET" -> http(n, d, ct, rsAddr, rsPort, vhost);
      case "MISC_CHECK" -> misc(n, d, ct);
      case "DNS_CHECK" ->
          List.of(new DnsCheck(l, ct, d.ep.resolve(n, rsAddr, rsPort, true), d.dnsType, d.dnsName));
      case "SMTP_CHECK" -> smtp(n, d, ct, rsAddr, rsPort);
      case "UDP_CHECK" -> udp(n, d, ct, rsAddr, rsPort);
      case "FILE_CHECK" -> file(n, d, ct);
      case "BFD_CHECK" -> bfd(n, d, ct);
      default -> List.of();
    };
  }

  private List<HealthCheck> http(
      Node n, Draft d, CheckerTiming ct, InetAddress rsAddr, int rsPort, @Nullable String vhost) {
    String type = n.keyword();
    String vh = d.vhost != null ? d.vhost : vhost;
    List<UrlCheck> us = new ArrayList<>();
    for (Node u : d.urls) {
      UrlCheck uc = UrlBlock.read(v, u, vh);
      if (uc != null) {
        us.add(uc);
      }
    }
    if (!type.equals("SSL_GET") && (d.verifyNode != null || d.caNode != null)) {
      v.error(
          Objects.requireNonNull(
              d.verifyNode != null ? d.verifyNode : d.caNode, "one of them is set"),
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
            d.ep.resolve(n, rsAddr, rsPort, true),
            type.equals("SSL_GET"),
            d.httpVersion,
            us,
            d.fastRecovery,
            d.enableSni,
            d.sniName,
            d.verifyCert,
            d.caFile));
  }

  private List<HealthCheck> misc(Node n, Draft d, CheckerTiming ct) {
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

  private List<HealthCheck> smtp(
      Node n, Draft d, CheckerTiming ct, InetAddress rsAddr, int rsPort) {
    List<HealthCheck> out = new ArrayList<>();
    CheckEndpointBlock ep = d.ep;
    if (d.smtpHosts.isEmpty()) {
      out.add(new SmtpCheck(Values.loc(n), ct, ep.resolve(n, rsAddr, rsPort, true), d.helo));
    }
    for (Node h : d.smtpHosts) {
      CheckEndpointBlock he = ep.copy();
      for (Node c : h.block()) {
        if (!CheckEndpointBlock.TABLE.dispatch(he, c)) {
          v.unknown(c, ENDPOINT, "SMTP_CHECK host");
        }
      }
      out.add(new SmtpCheck(Values.loc(h), ct, he.resolve(h, rsAddr, rsPort, true), d.helo));
    }
    return out;
  }

  private List<HealthCheck> udp(Node n, Draft d, CheckerTiming ct, InetAddress rsAddr, int rsPort) {
    if (d.minReply > d.maxReply) {
      v.error(
          n,
          "UDP_CHECK min_reply_length " + d.minReply + " is above max_reply_length " + d.maxReply);
    }
    return List.of(
        new UdpCheck(
            Values.loc(n),
            ct,
            d.ep.resolve(n, rsAddr, rsPort, true),
            d.payload,
            d.requireReply,
            d.minReply,
            d.maxReply));
  }

  private List<HealthCheck> file(Node n, Draft d, CheckerTiming ct) {
    String trackFile = d.trackFile;
    if (trackFile == null) {
      v.error(n, "FILE_CHECK needs track_file NAME");
      return List.of();
    }
    TrackFile tf = trackFiles.get(trackFile);
    if (tf == null) {
      Optional<String> s = Keywords.suggest(trackFile, trackFiles.keySet());
      v.error(
          Objects.requireNonNull(d.trackNode, "track_file was read from a node"),
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

  private List<HealthCheck> bfd(Node n, Draft d, CheckerTiming ct) {
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
}
