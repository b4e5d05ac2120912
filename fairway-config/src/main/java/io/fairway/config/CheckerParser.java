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
import java.util.HashSet;
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
  static final Set<String> URL =
      Set.of(
          "path",
          "digest",
          "status_code",
          "virtualhost",
          "regex",
          "regex_no_match",
          "regex_options",
          "regex_min_offset",
          "regex_max_offset",
          "regex_stack");
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

  List<Checker> checker(
      Node n, InetAddress rsAddr, int rsPort, InheritedTiming inherited, String vhost) {
    String type = n.keyword();
    if (!v.block(n)) {
      return List.of();
    }
    if (n.argc() > 0) {
      v.error(n, type + " takes no arguments before its { } block");
    }
    InheritedTiming own = new InheritedTiming();
    EndpointDraft ep = new EndpointDraft();
    boolean network =
        !type.equals("MISC_CHECK") && !type.equals("FILE_CHECK") && !type.equals("BFD_CHECK");
    Boolean logAll = null;
    // type-specific state
    String httpVersion = "1.0";
    boolean fastRecovery = false;
    boolean enableSni = false;
    Optional<String> sniName = Optional.empty();
    boolean verifyCert = false;
    Node verifyNode = null;
    Optional<String> caFile = Optional.empty();
    Node caNode = null;
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
      boolean timed =
          switch (type) {
            case "FILE_CHECK" -> false;
            case "BFD_CHECK" -> k.equals("alpha");
            case "MISC_CHECK" -> !k.equals("connect_timeout");
            default -> true;
          };
      if (timed && InheritedTiming.read(c, own, true, v)) {
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
            case "fast_recovery":
              {
                Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
                fastRecovery = b != null && b;
                break;
              }
            case "enable_sni":
              {
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
              // keepalived's opt-in to end TLS with close_notify: Fairway's TLS (Netty) always
              // does.
              if (v.args(c, 0, 1)) {
                v.bool(c, 1);
              }
              break;
            case "verify_cert":
              {
                Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
                verifyCert = b != null && b;
                verifyNode = c;
                break;
              }
            case "ca_file":
              if (v.args(c, 1, 1)) {
                caFile = Optional.of(c.arg(1));
                caNode = c;
              }
              break;
            default:
              handled = false;
          }
          break;
        case "MISC_CHECK":
          switch (k) {
            case "misc_path":
              misc = v.script(c);
              break;
            case "misc_timeout":
              if (v.args(c, 1, 1)) {
                miscTimeout = v.timer(c, 1, false);
              }
              break;
            case "misc_dynamic":
              {
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
                  v.error(
                      c,
                      "DNS_CHECK type '"
                          + c.arg(1)
                          + "' is not one of "
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
                Long w = v.signed(c, 1, -Values.INT32_MAX, Values.INT32_MAX, "weight");
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
        v.unknown(c, checkerKeywords(type), type);
      }
    }

    InheritedTiming t = own.over(inherited);
    if (type.equals("FILE_CHECK") || type.equals("BFD_CHECK")) {
      // Nothing is polled, so inherited polling values would only be noise.
      t = own;
      t.alpha = type.equals("BFD_CHECK") ? (own.alpha != null ? own.alpha : inherited.alpha) : null;
    } else if (type.equals("MISC_CHECK")) {
      t.connectTimeout = null;
    }
    CheckerTiming ct = resolveTiming(t, type);
    if (logAll != null) {
      ct =
          new CheckerTiming(
              ct.delayLoop(),
              ct.connectTimeout(),
              ct.retry(),
              ct.delayBeforeRetry(),
              ct.warmup(),
              ct.alpha(),
              logAll,
              ct.rise());
    }
    Location l = Values.loc(n);
    switch (type) {
      case "TCP_CHECK":
        return List.of(new TcpCheck(l, ct, resolve(n, ep, rsAddr, rsPort, true)));
      case "PING_CHECK":
        return List.of(new PingCheck(l, ct, resolve(n, ep, rsAddr, rsPort, false)));
      case "HTTP_GET":
      case "SSL_GET":
        {
          String vh = checkerVhost != null ? checkerVhost : vhost;
          List<UrlCheck> us = new ArrayList<>();
          for (Node u : urls) {
            UrlCheck uc = url(u, vh);
            if (uc != null) {
              us.add(uc);
            }
          }
          if (!type.equals("SSL_GET") && (verifyNode != null || caNode != null)) {
            v.error(
                verifyNode != null ? verifyNode : caNode,
                "verify_cert and ca_file apply to SSL_GET only; HTTP_GET has no certificate");
          }
          if (caNode != null && !verifyCert) {
            v.warn(
                caNode,
                "ca_file without verify_cert: the certificate is not verified (keepalived"
                    + " never does); add verify_cert to use it");
          }
          if (urls.isEmpty()) {
            v.warn(n, type + " has no url - checker ignored, as keepalived does");
            return List.of();
          }
          return List.of(
              new HttpCheck(
                  l,
                  ct,
                  resolve(n, ep, rsAddr, rsPort, true),
                  type.equals("SSL_GET"),
                  httpVersion,
                  us,
                  fastRecovery,
                  enableSni,
                  sniName,
                  verifyCert,
                  caFile));
        }
      case "MISC_CHECK":
        if (misc == null) {
          v.error(n, "MISC_CHECK needs misc_path");
          return List.of();
        }
        if (miscUser != null) {
          misc =
              new Script(
                  misc.command(),
                  misc.argv(),
                  Optional.of(miscUser),
                  Optional.ofNullable(miscGroup));
        }
        return List.of(
            new MiscCheck(
                l, ct, misc, miscTimeout != null ? miscTimeout : ct.delayLoop(), dynamic));
      case "DNS_CHECK":
        return List.of(new DnsCheck(l, ct, resolve(n, ep, rsAddr, rsPort, true), dnsType, dnsName));
      case "SMTP_CHECK":
        {
          List<Checker> out = new ArrayList<>();
          if (smtpHosts.isEmpty()) {
            out.add(new SmtpCheck(l, ct, resolve(n, ep, rsAddr, rsPort, true), helo));
          }
          for (Node h : smtpHosts) {
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
            out.add(new SmtpCheck(Values.loc(h), ct, resolve(h, he, rsAddr, rsPort, true), helo));
          }
          return out;
        }
      case "UDP_CHECK":
        if (minReply > maxReply) {
          v.error(
              n,
              "UDP_CHECK min_reply_length " + minReply + " is above max_reply_length " + maxReply);
        }
        return List.of(
            new UdpCheck(
                l,
                ct,
                resolve(n, ep, rsAddr, rsPort, true),
                payload,
                requireReply,
                minReply,
                maxReply));
      case "FILE_CHECK":
        {
          if (trackFile == null) {
            v.error(n, "FILE_CHECK needs track_file NAME");
            return List.of();
          }
          TrackFile tf = trackFiles.get(trackFile);
          if (tf == null) {
            Optional<String> s = Keywords.suggest(trackFile, trackFiles.keySet());
            v.error(
                trackNode,
                "track_file '"
                    + trackFile
                    + "' is not defined (define it at the top "
                    + "level; keepalived needs it before use)"
                    + s.map(x -> " (did you mean '" + x + "'?)").orElse(""));
            return List.of();
          }
          return List.of(
              new FileCheck(
                  l,
                  ct,
                  trackFile,
                  fileWeight != null ? fileWeight : tf.weight(),
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
    base.addAll(
        switch (type) {
          case "HTTP_GET", "SSL_GET" ->
              Set.of(
                  "url",
                  "http_protocol",
                  "virtualhost",
                  "fast_recovery",
                  "enable_sni",
                  "sni_name",
                  "tls_compliant",
                  "verify_cert",
                  "ca_file");
          case "MISC_CHECK" -> Set.of("misc_path", "misc_timeout", "misc_dynamic", "user");
          case "DNS_CHECK" -> Set.of("type", "name");
          case "SMTP_CHECK" -> Set.of("helo_name", "host");
          case "UDP_CHECK" ->
              Set.of("payload", "require_reply", "min_reply_length", "max_reply_length");
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

  private UrlCheck url(Node u, String vhost) {
    if (u.argc() > 0) {
      v.error(u, "url takes no arguments before its { } block");
    }
    String path = null;
    Optional<String> digest = Optional.empty();
    List<StatusRange> codes = new ArrayList<>();
    String urlVhost = null;
    Optional<String> regex = Optional.empty();
    Node regexNode = null;
    boolean noMatch = false;
    Set<RegexOption> options = EnumSet.noneOf(RegexOption.class);
    long minOffset = 0;
    OptionalLong maxOffset = OptionalLong.empty();
    Node maxNode = null;
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
            regex = Optional.of(c.arg(1));
            regexNode = c;
          }
          break;
        case "regex_no_match":
          {
            Boolean b = v.args(c, 0, 1) ? v.bool(c, 1) : null;
            noMatch = b != null && b;
            break;
          }
        case "regex_options":
          if (v.args(c, 1, 100)) {
            for (int i = 1; i <= c.argc(); i++) {
              regexOption(c, c.arg(i), options);
            }
          }
          break;
        case "regex_min_offset":
          if (v.args(c, 1, 1)) {
            Long o = v.number(c, 1, 0, Long.MAX_VALUE - 1, "offset");
            minOffset = o == null ? minOffset : o;
          }
          break;
        case "regex_max_offset":
          if (v.args(c, 1, 1)) {
            Long o = v.number(c, 1, 0, Long.MAX_VALUE - 1, "offset");
            maxOffset = o == null ? maxOffset : OptionalLong.of(o);
            maxNode = c;
          }
          break;
        case "regex_stack":
          // PCRE2's JIT stack size: java.util.regex has no such knob (its stack is the thread's).
          v.warn(c, "regex_stack has no meaning for Java regular expressions; ignored");
          break;
        default:
          v.unknown(c, URL, "url");
      }
    }
    if (path == null) {
      v.error(u, "url needs a path");
      return null;
    }
    if (codes.isEmpty()) {
      codes.add(StatusRange.DEFAULT);
    }
    if (regexNode != null) {
      int flags = 0;
      for (RegexOption o : options) {
        flags |= o.javaFlags();
      }
      try {
        Pattern.compile(regex.get(), flags);
      } catch (PatternSyntaxException e) {
        v.error(
            regexNode,
            "regex: "
                + e.getDescription()
                + " near index "
                + e.getIndex()
                + " of '"
                + regex.get()
                + "'");
      }
    } else if (noMatch || !options.isEmpty() || minOffset != 0 || maxOffset.isPresent()) {
      // keepalived drops these with a log line; say so where the operator can see it.
      v.warn(u, "regex_no_match/regex_options/regex_*_offset without regex; ignored");
      noMatch = false;
      options.clear();
      minOffset = 0;
      maxOffset = OptionalLong.empty();
    }
    if (maxOffset.isPresent() && minOffset > maxOffset.getAsLong()) {
      v.error(
          maxNode,
          "regex_max_offset "
              + maxOffset.getAsLong()
              + " is below regex_min_offset "
              + minOffset
              + ": no match could ever start in between");
    }
    return new UrlCheck(
        path,
        digest,
        codes,
        Optional.ofNullable(urlVhost != null ? urlVhost : vhost),
        regex,
        noMatch,
        options,
        minOffset,
        maxOffset);
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
