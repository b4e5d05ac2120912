package io.fairway.config;

import static io.fairway.config.DumpText.q;
import static io.fairway.config.DumpText.script;
import static io.fairway.config.DumpText.time;

import io.fairway.config.model.base.Addresses;
import io.fairway.config.model.vrrp.Notify;
import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.config.model.vrrp.VrrpScript;
import java.util.List;

/**
 * Writes the VRRP blocks: {@code vrrp_script}, {@code vrrp_instance} and {@code vrrp_sync_group},
 * in that order, so that every name an instance or group refers to is defined above it.
 *
 * <p>Why apart: the VRRP half of the model is its own package, and its blocks share nothing with
 * the virtual servers' but the value spellings of {@link DumpText}.
 */
final class VrrpWriter {
  private final DumpText out;

  VrrpWriter(DumpText out) {
    this.out = out;
  }

  void write(VrrpConfig c) {
    for (VrrpScript s : c.scripts()) {
      out.open("vrrp_script " + q(s.name()));
      String cmd = s.script().command();
      out.line("script " + (cmd.indexOf('"') >= 0 ? "'" + cmd + "'" : "\"" + cmd + "\""));
      out.line("interval " + time(s.interval()));
      out.line("timeout " + time(s.timeout()));
      out.line("weight " + s.weight() + (s.reverse() ? " reverse" : ""));
      out.line("rise " + s.rise());
      out.line("fall " + s.fall());
      s.script()
          .user()
          .ifPresent(
              u -> out.line("user " + q(u) + s.script().group().map(gr -> " " + q(gr)).orElse("")));
      if (s.initFail()) {
        out.line("init_fail");
      }
      out.close();
    }
    for (VrrpInstance i : c.instances()) {
      vrrpInstance(i);
    }
    for (SyncGroup g : c.syncGroups()) {
      out.open("vrrp_sync_group " + q(g.name()));
      out.open("group");
      g.members().forEach(m -> out.line(q(m)));
      out.close();
      notifyScripts(g.scripts());
      tracks("track_script", g.trackScripts());
      out.close();
    }
  }

  private void vrrpInstance(VrrpInstance i) {
    out.open("vrrp_instance " + q(i.name()));
    out.line("state " + i.initialState());
    out.line("interface " + q(i.interfaceName()));
    out.line("virtual_router_id " + i.virtualRouterId());
    out.line("priority " + i.priority());
    out.line("advert_int " + time(i.advertInterval()));
    out.line("version " + i.version());
    addresses("virtual_ipaddress", i.virtualAddresses());
    addresses("virtual_ipaddress_excluded", i.excludedAddresses());
    out.line(i.preempt() ? "preempt" : "nopreempt");
    if (!i.preemptDelay().isZero()) {
      out.line("preempt_delay " + time(i.preemptDelay()));
    }
    i.unicastSource().ifPresent(a -> out.line("unicast_src_ip " + Addresses.format(a)));
    if (i.unicast()) {
      out.open("unicast_peer");
      i.unicastPeers().forEach(a -> out.line(Addresses.format(a)));
      out.close();
    }
    i.authPass()
        .ifPresent(
            p -> {
              out.open("authentication");
              out.line("auth_type PASS");
              out.line("auth_pass " + q(p));
              out.close();
            });
    out.line("garp_master_delay " + time(i.garpMasterDelay()));
    out.line("garp_master_repeat " + i.garpMasterRepeat());
    out.line("garp_master_refresh " + i.garpMasterRefresh().map(DumpText::time).orElse("0"));
    notifyScripts(i.scripts());
    tracks("track_script", i.trackScripts());
    tracks("track_interface", i.trackInterfaces());
    tracks("track_file", i.trackFiles());
    out.line(i.accept() ? "accept" : "no_accept");
    i.lvsSyncDaemonInterface().ifPresent(s -> out.line("lvs_sync_daemon_interface " + q(s)));
    out.close();
  }

  private void addresses(String keyword, List<VirtualAddress> list) {
    if (list.isEmpty()) {
      return;
    }
    out.open(keyword);
    for (VirtualAddress a : list) {
      out.line(
          Addresses.format(a.address())
              + "/"
              + a.prefixLength()
              + a.device().map(d -> " dev " + q(d)).orElse("")
              + a.label().map(l -> " label " + q(l)).orElse("")
              + (a.scope() != 0 ? " scope " + a.scope() : "")
              + (a.noTrack() ? " no_track" : ""));
    }
    out.close();
  }

  private void notifyScripts(Notify n) {
    n.master().ifPresent(s -> out.line("notify_master " + script(s)));
    n.backup().ifPresent(s -> out.line("notify_backup " + script(s)));
    n.fault().ifPresent(s -> out.line("notify_fault " + script(s)));
    n.stop().ifPresent(s -> out.line("notify_stop " + script(s)));
    n.any().ifPresent(s -> out.line("notify " + script(s)));
  }

  private void tracks(String keyword, List<Track> list) {
    if (list.isEmpty()) {
      return;
    }
    out.open(keyword);
    for (Track t : list) {
      out.line(
          q(t.name())
              + t.weight().map(w -> " weight " + w).orElse("")
              + (t.reverse() ? " reverse" : ""));
    }
    out.close();
  }
}
