package io.fairway.config;

import static io.fairway.config.DumpText.onOff;
import static io.fairway.config.DumpText.q;
import static io.fairway.config.DumpText.time;

import io.fairway.config.model.Announcement;
import io.fairway.config.model.GlobalDefs;
import io.fairway.config.model.base.Addresses;
import io.fairway.config.model.vrrp.LvsSyncDaemon;
import io.fairway.config.model.vrrp.VrrpGlobals;
import java.util.Optional;

/**
 * Writes the {@code global_defs} block: the checker and LVS keywords, the announcing extensions,
 * the VRRP keywords keepalived keeps there too, and a global {@code lvs_sync_daemon}.
 *
 * <p>Why one writer per block: as the parsers are one keyword table per block, the dump is one
 * writer per block, so a keyword's reading and its writing are found by the same name.
 */
final class GlobalDefsWriter {
  private final DumpText out;

  GlobalDefsWriter(DumpText out) {
    this.out = out;
  }

  void write(GlobalDefs g, VrrpGlobals vg, Optional<LvsSyncDaemon> sync) {
    out.open("global_defs");
    g.routerId().ifPresent(r -> out.line("router_id " + q(r)));
    if (!g.notificationEmails().isEmpty()) {
      out.open("notification_email");
      g.notificationEmails().forEach(e -> out.line(q(e)));
      out.close();
    }
    g.notificationEmailFrom().ifPresent(f -> out.line("notification_email_from " + q(f)));
    g.smtpServer().ifPresent(s -> out.line("smtp_server " + s));
    out.line("smtp_connect_timeout " + g.smtpConnectTimeout().toSeconds());
    out.line("smtp_alert " + onOff(g.smtpAlert()));
    if (g.lvsFlush()) {
      out.line("lvs_flush");
    }
    switch (g.lvsFlushOnStop()) {
      case FULL -> out.line("lvs_flush_on_stop");
      case VS -> out.line("lvs_flush_on_stop VS");
      case NONE -> {}
    }
    StringBuilder t = new StringBuilder();
    g.lvsTimeoutTcp().ifPresent(d -> t.append(" tcp ").append(d.toSeconds()));
    g.lvsTimeoutTcpFin().ifPresent(d -> t.append(" tcpfin ").append(d.toSeconds()));
    g.lvsTimeoutUdp().ifPresent(d -> t.append(" udp ").append(d.toSeconds()));
    if (t.length() > 0) {
      out.line("lvs_timeouts" + t);
    }
    out.line("checker_log_all_failures " + onOff(g.checkerLogAllFailures()));
    if (g.rsInitNotifies()) {
      out.line("rs_init_notifies");
    }
    if (g.noCheckerEmails()) {
      out.line("no_checker_emails");
    }
    g.scriptUser().ifPresent(u -> out.line("script_user " + u));
    if (g.enableScriptSecurity()) {
      out.line("enable_script_security");
    }
    announcement(g.announcement());
    vrrpGlobals(vg);
    sync.filter(d -> !d.inInstance()).ifPresent(this::syncDaemon);
    out.close();
  }

  /** Every value explicit, the instance positional (keepalived's documented form). */
  private void syncDaemon(LvsSyncDaemon d) {
    StringBuilder b = new StringBuilder("lvs_sync_daemon ").append(q(d.interfaceName()));
    d.instance().ifPresent(i -> b.append(' ').append(q(i)));
    b.append(" id ").append(d.syncId());
    d.maxLen().ifPresent(x -> b.append(" maxlen ").append(x));
    d.port().ifPresent(x -> b.append(" port ").append(x));
    d.ttl().ifPresent(x -> b.append(" ttl ").append(x));
    d.group().ifPresent(a -> b.append(" group ").append(Addresses.format(a)));
    out.line(b.toString());
  }

  private void vrrpGlobals(VrrpGlobals g) {
    out.line("vrrp_version " + g.version());
    out.line("vrrp_garp_master_delay " + time(g.garpMasterDelay()));
    out.line("vrrp_garp_master_repeat " + g.garpMasterRepeat());
    out.line("vrrp_garp_master_refresh " + g.garpMasterRefresh().map(DumpText::time).orElse("0"));
    out.line("vrrp_garp_master_refresh_repeat " + g.garpMasterRefreshRepeat());
    if (!g.garpInterval().isZero()) {
      out.line("vrrp_garp_interval " + time(g.garpInterval()));
    }
    if (!g.gnaInterval().isZero()) {
      out.line("vrrp_gna_interval " + time(g.gnaInterval()));
    }
    if (g.lowerPrioNoAdvert()) {
      out.line("vrrp_lower_prio_no_advert");
    }
    out.line("vrrp_skip_check_adv_addr " + g.skipCheckAdvAddr());
    out.line("vrrp_strict " + g.strict());
    out.line("vrrp_mcast_group4 " + Addresses.format(g.mcastGroup4()));
    out.line("vrrp_mcast_group6 " + Addresses.format(g.mcastGroup6()));
    g.startupDelay().ifPresent(d -> out.line("vrrp_startup_delay " + time(d)));
  }

  /** The announcing keywords (Fairway extensions), written only when used. */
  private void announcement(Announcement a) {
    a.table().ifPresent(t -> out.line("announce_table " + t));
    if (!a.withdrawDelay().equals(Announcement.DEFAULT_WITHDRAW_DELAY)) {
      out.line("announce_withdraw_delay " + time(a.withdrawDelay()));
    }
    if (a.lvsSloppyTcp()) {
      out.line("lvs_sloppy_tcp");
    }
  }
}
