package io.fairway.config;

import io.fairway.config.model.Announcement;
import io.fairway.config.model.GlobalDefs;
import io.fairway.config.model.SslContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code global_defs} (the parts the checker side uses; the rest are reported as ignored) and the
 * {@code SSL} block of SSL_GET checkers.
 */
final class GlobalDefsParser {
  private final Values v;
  private final VrrpParser vrrp;

  GlobalDefsParser(Values v) {
    this(v, null);
  }

  /** With {@code vrrp}, the VRRP keywords go to it instead of being reported as ignored. */
  GlobalDefsParser(Values v, VrrpParser vrrp) {
    this.v = v;
    this.vrrp = vrrp;
  }

  GlobalDefs globalDefs(Node block, GlobalDefs g) {
    Optional<String> routerId = g.routerId();
    List<String> emails = new ArrayList<>(g.notificationEmails());
    Optional<String> from = g.notificationEmailFrom();
    Optional<String> smtpServer = g.smtpServer();
    Duration smtpTimeout = g.smtpConnectTimeout();
    boolean smtpAlert = g.smtpAlert();
    boolean flush = g.lvsFlush();
    GlobalDefs.FlushOnStop flushOnStop = g.lvsFlushOnStop();
    Optional<Duration> tcp = g.lvsTimeoutTcp();
    Optional<Duration> tcpFin = g.lvsTimeoutTcpFin();
    Optional<Duration> udp = g.lvsTimeoutUdp();
    boolean logAll = g.checkerLogAllFailures();
    boolean rsInit = g.rsInitNotifies();
    boolean noEmails = g.noCheckerEmails();
    Optional<String> scriptUser = g.scriptUser();
    boolean security = g.enableScriptSecurity();
    Announcement announce = g.announcement();
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
          if (v.args(n, 1, 2)
              && v.address(n, 1, "address") != null
              && (n.argc() < 2 || v.port(n, 2) != null)) {
            smtpServer = Optional.of(String.join(" ", n.words.subList(1, n.words.size())));
          }
          break;
        case "smtp_connect_timeout":
          {
            Long t = v.args(n, 1, 1) ? v.number(n, 1, 1, Values.INT32_MAX, "seconds") : null;
            if (t != null) {
              smtpTimeout = Duration.ofSeconds(t);
            }
            break;
          }
        case "smtp_alert":
          {
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
            flushOnStop = n.argc() == 1 ? GlobalDefs.FlushOnStop.VS : GlobalDefs.FlushOnStop.FULL;
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
                case "tcp":
                  tcp = d;
                  break;
                case "tcpfin":
                  tcpFin = d;
                  break;
                case "udp":
                  udp = d;
                  break;
                default:
                  v.error(
                      n, "lvs_timeouts: unknown protocol '" + n.arg(i) + "' (tcp, tcpfin or udp)");
              }
            }
            if (n.argc() % 2 != 0) {
              v.error(n, "lvs_timeouts: '" + n.arg(n.argc()) + "' needs a value");
            }
          }
          break;
        case "checker_log_all_failures":
          {
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
          if (AnnounceParser.GLOBAL.contains(k)) {
            announce = new AnnounceParser(v).global(n, announce);
          } else if (vrrp != null && VrrpParser.GLOBAL.contains(k)) {
            vrrp.global(n);
          } else if (k.equals("lvs_sync_daemon_interface")) {
            v.error(
                n,
                "lvs_sync_daemon_interface is a vrrp_instance keyword (keepalived 2.2 does "
                    + "not know it in global_defs); here write lvs_sync_daemon INTERFACE "
                    + "[VRRP_INSTANCE]");
          } else if (Keywords.IGNORED_GLOBAL.contains(k) || k.startsWith("vrrp_")) {
            v.warn(n, "global_defs '" + k + "' is not used by Fairway; ignored");
          } else {
            v.unknown(
                n,
                ModelBuilder.union(
                    ModelBuilder.GLOBAL,
                    AnnounceParser.GLOBAL,
                    Keywords.IGNORED_GLOBAL,
                    VrrpParser.GLOBAL),
                "global_defs");
          }
      }
    }
    return new GlobalDefs(
        routerId,
        emails,
        from,
        smtpServer,
        smtpTimeout,
        smtpAlert,
        flush,
        flushOnStop,
        tcp,
        tcpFin,
        udp,
        logAll,
        rsInit,
        noEmails,
        scriptUser,
        security,
        announce);
  }

  SslContext ssl(Node block) {
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
          v.unknown(n, Set.of("password", "ca", "certificate", "key"), "SSL");
      }
    }
    return new SslContext(
        Optional.ofNullable(m.get("password")),
        Optional.ofNullable(m.get("ca")),
        Optional.ofNullable(m.get("certificate")),
        Optional.ofNullable(m.get("key")));
  }
}
