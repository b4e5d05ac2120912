package io.fairway.config.model;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The parts of {@code global_defs} that matter to the checker side. Other global keywords are
 * accepted and reported as ignored.
 *
 * @param routerId {@code router_id}
 * @param notificationEmails {@code notification_email { }} addresses
 * @param notificationEmailFrom {@code notification_email_from}
 * @param smtpServer {@code smtp_server} as written (address [port])
 * @param smtpConnectTimeout {@code smtp_connect_timeout} (default 30 s)
 * @param smtpAlert {@code smtp_alert}
 * @param lvsFlush flush the whole IPVS table at startup ({@code lvs_flush})
 * @param lvsFlushOnStop what to remove at shutdown ({@code lvs_flush_on_stop [VS]})
 * @param lvsTimeoutTcp {@code lvs_timeouts tcp}
 * @param lvsTimeoutTcpFin {@code lvs_timeouts tcpfin}
 * @param lvsTimeoutUdp {@code lvs_timeouts udp}
 * @param checkerLogAllFailures default for checkers' {@code log_all_failures}
 * @param rsInitNotifies run notify_up/down for the initial state ({@code rs_init_notifies})
 * @param noCheckerEmails {@code no_checker_emails}
 * @param scriptUser {@code script_user} (user [group])
 * @param enableScriptSecurity {@code enable_script_security}
 * @param announcement announcing by BGP through a routing daemon (Fairway extensions)
 */
public record GlobalDefs(
    Optional<String> routerId,
    List<String> notificationEmails,
    Optional<String> notificationEmailFrom,
    Optional<String> smtpServer,
    Duration smtpConnectTimeout,
    boolean smtpAlert,
    boolean lvsFlush,
    FlushOnStop lvsFlushOnStop,
    Optional<Duration> lvsTimeoutTcp,
    Optional<Duration> lvsTimeoutTcpFin,
    Optional<Duration> lvsTimeoutUdp,
    boolean checkerLogAllFailures,
    boolean rsInitNotifies,
    boolean noCheckerEmails,
    Optional<String> scriptUser,
    boolean enableScriptSecurity,
    Announcement announcement) {
  public GlobalDefs {
    notificationEmails = List.copyOf(notificationEmails);
    announcement = announcement == null ? Announcement.NONE : announcement;
  }

  /** Without announcing. */
  public GlobalDefs(
      Optional<String> routerId,
      List<String> notificationEmails,
      Optional<String> notificationEmailFrom,
      Optional<String> smtpServer,
      Duration smtpConnectTimeout,
      boolean smtpAlert,
      boolean lvsFlush,
      FlushOnStop lvsFlushOnStop,
      Optional<Duration> lvsTimeoutTcp,
      Optional<Duration> lvsTimeoutTcpFin,
      Optional<Duration> lvsTimeoutUdp,
      boolean checkerLogAllFailures,
      boolean rsInitNotifies,
      boolean noCheckerEmails,
      Optional<String> scriptUser,
      boolean enableScriptSecurity) {
    this(
        routerId,
        notificationEmails,
        notificationEmailFrom,
        smtpServer,
        smtpConnectTimeout,
        smtpAlert,
        lvsFlush,
        lvsFlushOnStop,
        lvsTimeoutTcp,
        lvsTimeoutTcpFin,
        lvsTimeoutUdp,
        checkerLogAllFailures,
        rsInitNotifies,
        noCheckerEmails,
        scriptUser,
        enableScriptSecurity,
        Announcement.NONE);
  }

  /**
   * keepalived's {@code lvs_flush_on_stop} (global_parser.c: LVS_NO_FLUSH, LVS_FLUSH_FULL,
   * LVS_FLUSH_VS).
   */
  public enum FlushOnStop {
    /** Not given: each real server, sorry server and service is deleted one by one. */
    NONE,
    /** {@code lvs_flush_on_stop}: one flush of the whole IPVS table, other services included. */
    FULL,
    /**
     * {@code lvs_flush_on_stop VS}: the configuration's services are deleted, their destinations
     * with them.
     */
    VS
  }

  /** The defaults of a file without global_defs. */
  public static GlobalDefs defaults() {
    return new GlobalDefs(
        Optional.empty(),
        List.of(),
        Optional.empty(),
        Optional.empty(),
        Duration.ofSeconds(30),
        false,
        false,
        FlushOnStop.NONE,
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        false,
        false,
        false,
        Optional.empty(),
        false);
  }
}
