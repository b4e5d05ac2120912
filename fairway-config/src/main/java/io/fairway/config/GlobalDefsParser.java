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
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@code global_defs} (the parts the checker side uses; the rest are reported as ignored) and the
 * {@code SSL} block of SSL_GET checkers.
 */
final class GlobalDefsParser {
  private final Values v;
  private final @Nullable VrrpParser vrrp;

  GlobalDefsParser(Values v) {
    this(v, null);
  }

  /** With {@code vrrp}, the VRRP keywords go to it instead of being reported as ignored. */
  GlobalDefsParser(Values v, @Nullable VrrpParser vrrp) {
    this.v = v;
    this.vrrp = vrrp;
  }

  /** What global_defs sets, started from the values before the block (an earlier global_defs). */
  private static final class Defs {
    final Values v;
    final @Nullable VrrpParser vrrp;
    Optional<String> routerId;
    final List<String> emails;
    Optional<String> from;
    Optional<String> smtpServer;
    Duration smtpTimeout;
    boolean smtpAlert;
    boolean flush;
    GlobalDefs.FlushOnStop flushOnStop;
    Optional<Duration> tcp;
    Optional<Duration> tcpFin;
    Optional<Duration> udp;
    boolean logAll;
    boolean rsInit;
    boolean noEmails;
    Optional<String> scriptUser;
    boolean security;
    Announcement announce;

    Defs(Values v, @Nullable VrrpParser vrrp, GlobalDefs g) {
      this.v = v;
      this.vrrp = vrrp;
      routerId = g.routerId();
      emails = new ArrayList<>(g.notificationEmails());
      from = g.notificationEmailFrom();
      smtpServer = g.smtpServer();
      smtpTimeout = g.smtpConnectTimeout();
      smtpAlert = g.smtpAlert();
      flush = g.lvsFlush();
      flushOnStop = g.lvsFlushOnStop();
      tcp = g.lvsTimeoutTcp();
      tcpFin = g.lvsTimeoutTcpFin();
      udp = g.lvsTimeoutUdp();
      logAll = g.checkerLogAllFailures();
      rsInit = g.rsInitNotifies();
      noEmails = g.noCheckerEmails();
      scriptUser = g.scriptUser();
      security = g.enableScriptSecurity();
      announce = g.announcement();
    }

    GlobalDefs build() {
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
  }

  private static final KeywordTable<Defs> TABLE = table();

  private static KeywordTable<Defs> table() {
    KeywordTable<Defs> t = new KeywordTable<>();
    t.on("router_id", (d, n) -> word(d, n, w -> d.routerId = w));
    t.on(
        "notification_email",
        (d, n) -> {
          if (d.v.block(n)) {
            for (Node e : n.block()) {
              d.emails.addAll(e.words);
            }
          }
        });
    t.on("notification_email_from", (d, n) -> word(d, n, w -> d.from = w));
    t.on("smtp_server", GlobalDefsParser::smtpServer);
    t.on(
        "smtp_connect_timeout",
        (d, n) -> {
          Long s = d.v.args(n, 1, 1) ? d.v.number(n, 1, 1, Values.INT32_MAX, "seconds") : null;
          if (s != null) {
            d.smtpTimeout = Duration.ofSeconds(s);
          }
        });
    t.on("smtp_alert", (d, n) -> bool(d, n, b -> d.smtpAlert = b));
    t.on("lvs_flush", (d, n) -> flag(d, n, () -> d.flush = true));
    t.on("lvs_flush_on_stop", GlobalDefsParser::flushOnStop);
    t.on("lvs_timeouts", GlobalDefsParser::lvsTimeouts);
    t.on("checker_log_all_failures", (d, n) -> bool(d, n, b -> d.logAll = b));
    t.on("rs_init_notifies", (d, n) -> flag(d, n, () -> d.rsInit = true));
    t.on("no_checker_emails", (d, n) -> flag(d, n, () -> d.noEmails = true));
    t.on(
        "script_user",
        (d, n) -> {
          if (d.v.args(n, 1, 2)) {
            d.scriptUser = Optional.of(String.join(" ", n.words.subList(1, n.words.size())));
          }
        });
    t.on("enable_script_security", (d, n) -> flag(d, n, () -> d.security = true));
    others(t);
    return t;
  }

  /** The keywords other parsers read, and those Fairway reports and ignores. */
  private static void others(KeywordTable<Defs> t) {
    t.on(
        List.copyOf(AnnounceParser.GLOBAL),
        (d, n) -> d.announce = new AnnounceParser(d.v).global(n, d.announce));
    t.on(
        List.copyOf(VrrpParser.GLOBAL),
        (d, n) -> {
          if (d.vrrp != null) {
            d.vrrp.global(n);
          } else {
            notHandled(d, n);
          }
        });
    t.unlisted(
        "lvs_sync_daemon_interface",
        (d, n) ->
            d.v.error(
                n,
                "lvs_sync_daemon_interface is a vrrp_instance keyword (keepalived 2.2 does "
                    + "not know it in global_defs); here write lvs_sync_daemon INTERFACE "
                    + "[VRRP_INSTANCE]"));
    // Some VRRP keywords are also ignored ones: without a VRRP parser they fall back to these.
    for (String k : Keywords.IGNORED_GLOBAL) {
      if (!VrrpParser.GLOBAL.contains(k)) {
        t.on(k, GlobalDefsParser::ignored);
      }
    }
  }

  /** The keywords of global_defs, for suggestions. */
  static Set<String> known() {
    return TABLE.known();
  }

  GlobalDefs globalDefs(Node block, GlobalDefs g) {
    Defs d = new Defs(v, vrrp, g);
    for (Node n : block.block()) {
      if (!TABLE.dispatch(d, n)) {
        notHandled(d, n);
      }
    }
    return d.build();
  }

  /** A keyword no handler takes: other VRRP keywords are ignored, anything else is unknown. */
  private static void notHandled(Defs d, Node n) {
    String k = n.keyword();
    if (Keywords.IGNORED_GLOBAL.contains(k) || k.startsWith("vrrp_")) {
      ignored(d, n);
    } else {
      d.v.unknown(n, TABLE.known(), "global_defs");
    }
  }

  private static void ignored(Defs d, Node n) {
    d.v.warn(n, "global_defs '" + n.keyword() + "' is not used by Fairway; ignored");
  }

  private static void word(Defs d, Node n, Consumer<Optional<String>> set) {
    if (d.v.args(n, 1, 1)) {
      set.accept(Optional.of(n.arg(1)));
    }
  }

  private static void bool(Defs d, Node n, Consumer<Boolean> set) {
    Boolean b = d.v.args(n, 0, 1) ? d.v.bool(n, 1) : null;
    if (b != null) {
      set.accept(b);
    }
  }

  private static void flag(Defs d, Node n, Runnable set) {
    if (d.v.args(n, 0, 0)) {
      set.run();
    }
  }

  private static void smtpServer(Defs d, Node n) {
    Values v = d.v;
    if (v.args(n, 1, 2)
        && v.address(n, 1, "address") != null
        && (n.argc() < 2 || v.port(n, 2) != null)) {
      d.smtpServer = Optional.of(String.join(" ", n.words.subList(1, n.words.size())));
    }
  }

  private static void flushOnStop(Defs d, Node n) {
    if (d.v.args(n, 0, 1)) {
      if (n.argc() == 1 && !n.arg(1).equals("VS")) {
        d.v.error(n, "lvs_flush_on_stop takes only 'VS'");
      }
      d.flushOnStop = n.argc() == 1 ? GlobalDefs.FlushOnStop.VS : GlobalDefs.FlushOnStop.FULL;
    }
  }

  private static void lvsTimeouts(Defs d, Node n) {
    Values v = d.v;
    if (!v.args(n, 2, 6)) {
      return;
    }
    for (int i = 1; i + 1 <= n.argc(); i += 2) {
      Long secs = v.number(n, i + 1, 1, 86400L * 365, n.arg(i) + " seconds");
      if (secs == null) {
        continue;
      }
      Optional<Duration> t = Optional.of(Duration.ofSeconds(secs));
      switch (n.arg(i)) {
        case "tcp" -> d.tcp = t;
        case "tcpfin" -> d.tcpFin = t;
        case "udp" -> d.udp = t;
        default ->
            v.error(n, "lvs_timeouts: unknown protocol '" + n.arg(i) + "' (tcp, tcpfin or udp)");
      }
    }
    if (n.argc() % 2 != 0) {
      v.error(n, "lvs_timeouts: '" + n.arg(n.argc()) + "' needs a value");
    }
  }

  SslContext ssl(Node block) {
    Map<String, String> m = new HashMap<>();
    for (Node n : block.block()) {
      switch (n.keyword()) {
        case "password", "ca", "certificate", "key" -> {
          if (v.args(n, 1, 1)) {
            m.put(n.keyword(), n.arg(1));
          }
        }
        default -> {
          v.unknown(n, Set.of("password", "ca", "certificate", "key"), "SSL");
        }
      }
    }
    return new SslContext(
        Optional.ofNullable(m.get("password")),
        Optional.ofNullable(m.get("ca")),
        Optional.ofNullable(m.get("certificate")),
        Optional.ofNullable(m.get("key")));
  }
}
