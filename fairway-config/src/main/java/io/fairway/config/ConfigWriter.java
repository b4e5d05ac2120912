package io.fairway.config;

import io.fairway.config.model.Addresses;
import io.fairway.config.model.BfdCheck;
import io.fairway.config.model.CheckerTiming;
import io.fairway.config.model.Config;
import io.fairway.config.model.DirectorGroup;
import io.fairway.config.model.DirectorLayout;
import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.DnsCheck;
import io.fairway.config.model.Endpoint;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.ForwardingMethod;
import io.fairway.config.model.GlobalDefs;
import io.fairway.config.model.GroupEntry;
import io.fairway.config.model.HealthCheck;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.MiscCheck;
import io.fairway.config.model.PingCheck;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.RegexOption;
import io.fairway.config.model.SchedulerFlag;
import io.fairway.config.model.Script;
import io.fairway.config.model.ShardParam;
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
import io.fairway.config.model.vrrp.LvsSyncDaemon;
import io.fairway.config.model.vrrp.Notify;
import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpGlobals;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.config.model.vrrp.VrrpScript;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Prints a {@link Config} as keepalived.conf text with every effective value spelled out, so an
 * operator sees exactly what Fairway will do (and parsing it back gives the same model).
 */
final class ConfigWriter {
  private final StringBuilder out = new StringBuilder();
  private int indent;

  String write(Config c) {
    line("# Effective configuration written by fairway check-config --dump.");
    line("# Includes, definitions and repeaters are expanded; defaults are explicit.");
    global(c.globalDefs(), c.vrrp().globals(), c.vrrp().syncDaemon());
    c.ssl().ifPresent(this::ssl);
    for (TrackFile t : c.trackFiles()) {
      trackFile(t);
    }
    for (VirtualServerGroup g : c.groups()) {
      group(g);
    }
    for (ShardParam p : c.shardParams()) {
      shardParam(p);
    }
    for (VirtualServer vs : c.virtualServers()) {
      virtualServer(vs);
    }
    vrrp(c.vrrp());
    return out.toString();
  }

  private void line(String s) {
    out.append("    ".repeat(indent)).append(s).append('\n');
  }

  private void open(String s) {
    line(s + " {");
    indent++;
  }

  private void close() {
    indent--;
    line("}");
  }

  /** Quotes a word if keepalived would otherwise split or cut it. */
  static String q(String s) {
    // A leading $, @ or ~ (or a lone include) would make the line a definition, a conditional,
    // a repeater or an include.
    if (s.isEmpty()
        || s.charAt(0) == '$'
        || s.charAt(0) == '@'
        || s.charAt(0) == '~'
        || Preprocessor.isInclude(s)) {
      return "\"" + s + "\"";
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Preprocessor.isBlank(c) || c == '#' || c == '!' || c == '{' || c == '}' || c == '"') {
        return "\"" + s + "\"";
      }
    }
    return s;
  }

  static String time(Duration d) {
    return new BigDecimal(d.toNanos()).movePointLeft(9).stripTrailingZeros().toPlainString();
  }

  static String number(double d) {
    if (d == Math.rint(d)) {
      return Long.toString((long) d);
    }
    return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
  }

  private static String onOff(boolean b) {
    return b ? "on" : "off";
  }

  private static String script(Script s) {
    String cmd = s.command();
    String quoted = cmd.indexOf('"') >= 0 ? "'" + cmd + "'" : "\"" + cmd + "\"";
    StringBuilder sb = new StringBuilder(quoted);
    s.user().ifPresent(u -> sb.append(' ').append(q(u)));
    s.group().ifPresent(g -> sb.append(' ').append(q(g)));
    return sb.toString();
  }

  private void global(GlobalDefs g, VrrpGlobals vg, java.util.Optional<LvsSyncDaemon> sync) {
    open("global_defs");
    g.routerId().ifPresent(r -> line("router_id " + q(r)));
    if (!g.notificationEmails().isEmpty()) {
      open("notification_email");
      g.notificationEmails().forEach(e -> line(q(e)));
      close();
    }
    g.notificationEmailFrom().ifPresent(f -> line("notification_email_from " + q(f)));
    g.smtpServer().ifPresent(s -> line("smtp_server " + s));
    line("smtp_connect_timeout " + g.smtpConnectTimeout().toSeconds());
    line("smtp_alert " + onOff(g.smtpAlert()));
    if (g.lvsFlush()) {
      line("lvs_flush");
    }
    switch (g.lvsFlushOnStop()) {
      case FULL -> line("lvs_flush_on_stop");
      case VS -> line("lvs_flush_on_stop VS");
      case NONE -> {}
    }
    StringBuilder t = new StringBuilder();
    g.lvsTimeoutTcp().ifPresent(d -> t.append(" tcp ").append(d.toSeconds()));
    g.lvsTimeoutTcpFin().ifPresent(d -> t.append(" tcpfin ").append(d.toSeconds()));
    g.lvsTimeoutUdp().ifPresent(d -> t.append(" udp ").append(d.toSeconds()));
    if (t.length() > 0) {
      line("lvs_timeouts" + t);
    }
    line("checker_log_all_failures " + onOff(g.checkerLogAllFailures()));
    if (g.rsInitNotifies()) {
      line("rs_init_notifies");
    }
    if (g.noCheckerEmails()) {
      line("no_checker_emails");
    }
    g.scriptUser().ifPresent(u -> line("script_user " + u));
    if (g.enableScriptSecurity()) {
      line("enable_script_security");
    }
    announcement(g.announcement());
    vrrpGlobals(vg);
    sync.filter(d -> !d.inInstance()).ifPresent(this::syncDaemon);
    close();
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
    line(b.toString());
  }

  // --- VRRP ------------------------------------------------------------------------------------

  private void vrrpGlobals(VrrpGlobals g) {
    line("vrrp_version " + g.version());
    line("vrrp_garp_master_delay " + time(g.garpMasterDelay()));
    line("vrrp_garp_master_repeat " + g.garpMasterRepeat());
    line("vrrp_garp_master_refresh " + g.garpMasterRefresh().map(ConfigWriter::time).orElse("0"));
    line("vrrp_garp_master_refresh_repeat " + g.garpMasterRefreshRepeat());
    if (!g.garpInterval().isZero()) {
      line("vrrp_garp_interval " + time(g.garpInterval()));
    }
    if (!g.gnaInterval().isZero()) {
      line("vrrp_gna_interval " + time(g.gnaInterval()));
    }
    if (g.lowerPrioNoAdvert()) {
      line("vrrp_lower_prio_no_advert");
    }
    line("vrrp_skip_check_adv_addr " + g.skipCheckAdvAddr());
    line("vrrp_strict " + g.strict());
    line("vrrp_mcast_group4 " + Addresses.format(g.mcastGroup4()));
    line("vrrp_mcast_group6 " + Addresses.format(g.mcastGroup6()));
    g.startupDelay().ifPresent(d -> line("vrrp_startup_delay " + time(d)));
  }

  private void vrrp(VrrpConfig c) {
    for (VrrpScript s : c.scripts()) {
      open("vrrp_script " + q(s.name()));
      String cmd = s.script().command();
      line("script " + (cmd.indexOf('"') >= 0 ? "'" + cmd + "'" : "\"" + cmd + "\""));
      line("interval " + time(s.interval()));
      line("timeout " + time(s.timeout()));
      line("weight " + s.weight() + (s.reverse() ? " reverse" : ""));
      line("rise " + s.rise());
      line("fall " + s.fall());
      s.script()
          .user()
          .ifPresent(
              u -> line("user " + q(u) + s.script().group().map(gr -> " " + q(gr)).orElse("")));
      if (s.initFail()) {
        line("init_fail");
      }
      close();
    }
    for (VrrpInstance i : c.instances()) {
      vrrpInstance(i);
    }
    for (SyncGroup g : c.syncGroups()) {
      open("vrrp_sync_group " + q(g.name()));
      open("group");
      g.members().forEach(m -> line(q(m)));
      close();
      notifyScripts(g.scripts());
      tracks("track_script", g.trackScripts());
      close();
    }
  }

  private void vrrpInstance(VrrpInstance i) {
    open("vrrp_instance " + q(i.name()));
    line("state " + i.initialState());
    line("interface " + q(i.interfaceName()));
    line("virtual_router_id " + i.virtualRouterId());
    line("priority " + i.priority());
    line("advert_int " + time(i.advertInterval()));
    line("version " + i.version());
    addresses("virtual_ipaddress", i.virtualAddresses());
    addresses("virtual_ipaddress_excluded", i.excludedAddresses());
    line(i.preempt() ? "preempt" : "nopreempt");
    if (!i.preemptDelay().isZero()) {
      line("preempt_delay " + time(i.preemptDelay()));
    }
    i.unicastSource().ifPresent(a -> line("unicast_src_ip " + Addresses.format(a)));
    if (i.unicast()) {
      open("unicast_peer");
      i.unicastPeers().forEach(a -> line(Addresses.format(a)));
      close();
    }
    i.authPass()
        .ifPresent(
            p -> {
              open("authentication");
              line("auth_type PASS");
              line("auth_pass " + q(p));
              close();
            });
    line("garp_master_delay " + time(i.garpMasterDelay()));
    line("garp_master_repeat " + i.garpMasterRepeat());
    line("garp_master_refresh " + i.garpMasterRefresh().map(ConfigWriter::time).orElse("0"));
    notifyScripts(i.scripts());
    tracks("track_script", i.trackScripts());
    tracks("track_interface", i.trackInterfaces());
    tracks("track_file", i.trackFiles());
    line(i.accept() ? "accept" : "no_accept");
    i.lvsSyncDaemonInterface().ifPresent(s -> line("lvs_sync_daemon_interface " + q(s)));
    close();
  }

  private void addresses(String keyword, java.util.List<VirtualAddress> list) {
    if (list.isEmpty()) {
      return;
    }
    open(keyword);
    for (VirtualAddress a : list) {
      line(
          Addresses.format(a.address())
              + "/"
              + a.prefixLength()
              + a.device().map(d -> " dev " + q(d)).orElse("")
              + a.label().map(l -> " label " + q(l)).orElse("")
              + (a.scope() != 0 ? " scope " + a.scope() : "")
              + (a.noTrack() ? " no_track" : ""));
    }
    close();
  }

  private void notifyScripts(Notify n) {
    n.master().ifPresent(s -> line("notify_master " + script(s)));
    n.backup().ifPresent(s -> line("notify_backup " + script(s)));
    n.fault().ifPresent(s -> line("notify_fault " + script(s)));
    n.stop().ifPresent(s -> line("notify_stop " + script(s)));
    n.any().ifPresent(s -> line("notify " + script(s)));
  }

  private void tracks(String keyword, java.util.List<Track> list) {
    if (list.isEmpty()) {
      return;
    }
    open(keyword);
    for (Track t : list) {
      line(
          q(t.name())
              + t.weight().map(w -> " weight " + w).orElse("")
              + (t.reverse() ? " reverse" : ""));
    }
    close();
  }

  private void ssl(SslContext s) {
    open("SSL");
    s.password().ifPresent(p -> line("password " + q(p)));
    s.ca().ifPresent(p -> line("ca " + q(p)));
    s.certificate().ifPresent(p -> line("certificate " + q(p)));
    s.key().ifPresent(p -> line("key " + q(p)));
    close();
  }

  private void trackFile(TrackFile t) {
    open("track_file " + q(t.name()));
    line("file " + q(t.file()));
    line("weight " + t.weight() + (t.reverse() ? " reverse" : ""));
    t.initValue().ifPresent(v -> line("init_file " + v + (t.overwrite() ? " overwrite" : "")));
    close();
  }

  private void group(VirtualServerGroup g) {
    open("virtual_server_group " + q(g.name()));
    for (GroupEntry e : g.entries()) {
      if (e instanceof GroupEntry.Fwmark f) {
        line("fwmark " + f.fwmark() + " " + f.family().keyword());
      } else {
        GroupEntry.AddressRange r = (GroupEntry.AddressRange) e;
        String a = Addresses.format(r.first());
        if (!r.first().equals(r.last())) {
          a += "-" + Addresses.format(r.last());
        }
        line(a + " " + r.port());
      }
    }
    close();
  }

  private static String forwarding(Forwarding f) {
    StringBuilder sb = new StringBuilder(f.method().name());
    if (f.method() == ForwardingMethod.TUN) {
      sb.append(" type ").append(f.tunnelType().name().toLowerCase(java.util.Locale.ROOT));
      if (f.tunnelPort() != 0) {
        sb.append(" port ").append(f.tunnelPort());
      }
      if (f.checksum() != Forwarding.TunnelChecksum.NONE) {
        sb.append(' ').append(f.checksum().name().toLowerCase(java.util.Locale.ROOT));
      }
    }
    return sb.toString();
  }

  private void accessLogs(io.fairway.config.model.AccessLogs a) {
    for (io.fairway.config.model.AccessLogs.Entry e : a.logs()) {
      line("access_log " + e.path() + " " + e.format().keyword());
    }
  }

  private void proxySettings(io.fairway.config.model.ProxySettings p) {
    if (p.forwarded()) {
      line("http_forwarded");
    }
    proxyProtocol(p.proxyProtocol());
    io.fairway.config.model.ProxySettings.Timeouts t = p.timeouts();
    if (t.equals(io.fairway.config.model.ProxySettings.Timeouts.NONE)) {
      return;
    }
    open("proxy_timeouts");
    t.requestHead().ifPresent(d -> line("request_head " + time(d)));
    t.requestBody().ifPresent(d -> line("request_body " + time(d)));
    t.requestBodyMinRate().ifPresent(r -> line("request_body_min_rate " + r));
    t.connect().ifPresent(d -> line("connect " + time(d)));
    t.firstByte().ifPresent(d -> line("first_byte " + time(d)));
    t.keepAlive().ifPresent(d -> line("keepalive " + time(d)));
    t.idle().ifPresent(d -> line("idle " + time(d)));
    t.tunnel().ifPresent(d -> line("tunnel " + time(d)));
    close();
  }

  private void tls(io.fairway.config.model.TlsSettings t) {
    if (!t.enabled()) {
      if (!t.alpn().isEmpty()) {
        line("alpn " + String.join(" ", t.alpn())); // a plain listener's h2c
      }
      return;
    }
    open("tls");
    t.certificates().forEach(c -> line("certificate " + q(c.chain()) + " " + q(c.key())));
    if (!t.protocols().equals(io.fairway.config.model.TlsSettings.DEFAULT_PROTOCOLS)) {
      line("protocols " + String.join(" ", t.protocols()));
    }
    if (!t.alpn().isEmpty()) {
      line("alpn " + String.join(" ", t.alpn()));
    }
    t.ticketKeys().ifPresent(k -> line("ticket_keys " + q(k.file())));
    t.handshakeTimeout().ifPresent(d -> line("handshake_timeout " + time(d)));
    close();
  }

  /** {@code proxy_protocol accept} (virtual server) and {@code send_proxy} (real server). */
  private void proxyProtocol(io.fairway.config.model.ProxyProtocol p) {
    if (p.accept()) {
      line("proxy_protocol accept");
    }
    if (p.send() != io.fairway.config.model.ProxyProtocol.Version.NONE) {
      line("send_proxy " + p.send().keyword());
    }
  }

  private void virtualServer(VirtualServer vs) {
    VirtualServerId id = vs.id();
    header(id);
    if (!isDefaultName(vs)) {
      line("name " + q(vs.name()));
    }
    line("lb_algo " + vs.scheduler().keyword());
    director(vs.director());
    layout(vs.layout());
    if (vs.hashBalanceFactor() != 0) {
      line("hash_balance_factor " + vs.hashBalanceFactor());
    }
    line("lb_kind " + forwarding(vs.forwarding()));
    proxySettings(vs.proxy());
    accessLogs(vs.accessLogs());
    tls(vs.proxy().tls());
    if (id instanceof VirtualServerId.Address a) {
      line("protocol " + a.protocol());
    } else if (id instanceof VirtualServerId.Group g) {
      line("protocol " + g.protocol());
    }
    vs.flags().stream().map(SchedulerFlag::keyword).sorted().forEach(this::line);
    persistence(vs);
    quorum(vs);
    vs.sorryServer().ifPresent(this::sorry);
    extensions(vs);
    for (RealServer rs : vs.realServers()) {
      realServer(rs, vs.slowStart());
    }
    for (io.fairway.config.model.DnsDiscovery d : vs.discovery()) {
      ConfigWriter template = new ConfigWriter();
      template.realServer(d.template(), vs.slowStart());
      DnsBlockWriter.lines(d, template.out.toString()).forEach(this::line);
    }
    close();
  }

  /** Opens the virtual_server block with the header line its id was read from. */
  private void header(VirtualServerId id) {
    if (id instanceof VirtualServerId.Address a) {
      open("virtual_server " + Addresses.format(a.address()) + " " + a.port());
    } else if (id instanceof VirtualServerId.Fwmark f) {
      open("virtual_server fwmark " + f.fwmark());
      line("ip_family " + f.family().keyword());
    } else {
      open("virtual_server group " + q(((VirtualServerId.Group) id).name()));
    }
  }

  private void persistence(VirtualServer vs) {
    if (vs.persistent()) {
      line("persistence_timeout " + vs.persistenceTimeout().toSeconds());
    }
    vs.persistenceGranularity().ifPresent(p -> line("persistence_granularity " + mask(p)));
    vs.persistenceEngine().ifPresent(e -> line("persistence_engine " + q(e)));
    if (vs.haSuspend()) {
      line("ha_suspend");
    }
  }

  private void quorum(VirtualServer vs) {
    line("omega " + onOff(vs.omega()));
    line("quorum " + vs.quorum());
    line("hysteresis " + vs.hysteresis());
    vs.quorumUp().ifPresent(s -> line("quorum_up " + script(s)));
    vs.quorumDown().ifPresent(s -> line("quorum_down " + script(s)));
  }

  /** Fairway extensions, written only when used (keepalived reads the dump otherwise). */
  private void extensions(VirtualServer vs) {
    if (vs.overflowToSorryServer()) {
      line("overflow_to_sorry_server");
    }
    if (!vs.slowStart().isZero()) {
      line("slow_start " + time(vs.slowStart()));
    }
    if (vs.announce()) {
      line("announce");
    }
  }

  /** Default names are not printed, so that keepalived can read the dump. */
  private static boolean isDefaultName(VirtualServer vs) {
    if (vs.id() instanceof VirtualServerId.Address a) {
      String d = ModelBuilder.defaultName(a);
      return vs.name().equals(d)
          || vs.name().equals(d + "/" + a.protocol().name().toLowerCase(java.util.Locale.ROOT));
    }
    return vs.name().equals(defaultName(vs.id()));
  }

  private static String defaultName(VirtualServerId id) {
    if (id instanceof VirtualServerId.Fwmark f) {
      return "fwmark:" + f.fwmark();
    }
    if (id instanceof VirtualServerId.Group g) {
      return "group:" + g.name();
    }
    return "";
  }

  private static String mask(int prefix) {
    if (prefix > 32) {
      return Integer.toString(prefix);
    }
    long m = prefix == 0 ? 0 : (0xffffffffL << (32 - prefix)) & 0xffffffffL;
    return (m >> 24 & 0xff) + "." + (m >> 16 & 0xff) + "." + (m >> 8 & 0xff) + "." + (m & 0xff);
  }

  private void director(DirectorSpec d) {
    if (d instanceof DirectorSpec.Fallback f) {
      open("fallback");
      line("sticky " + onOff(f.sticky()));
      close();
    } else if (d instanceof DirectorSpec.Hash h) {
      open("hash");
      line("by " + h.by().kind() + h.by().name().map(n -> " " + q(n)).orElse(""));
      close();
    } else if (d instanceof DirectorSpec.Shard s) {
      open("shard");
      line("replicas " + s.replicas());
      line("by " + s.by().kind() + s.by().name().map(n -> " " + q(n)).orElse(""));
      line("healthy " + s.healthy());
      line("warmup " + number(s.warmup()));
      line("rampup " + time(s.rampup()));
      if (s.alt() != 0) {
        line("alt " + s.alt());
      }
      s.associate().ifPresent(p -> line("associate " + q(p)));
      close();
    }
  }

  /** A shard_param block with what it sets, nothing more: the rest is Varnish's defaults. */
  private void shardParam(ShardParam p) {
    open("shard_param " + q(p.name()));
    p.by().ifPresent(b -> line("by " + b.kind() + b.name().map(n -> " " + q(n)).orElse("")));
    p.healthy().ifPresent(h -> line("healthy " + h));
    p.warmup().ifPresent(w -> line("warmup " + number(w)));
    p.rampup().ifPresent(r -> line("rampup " + onOff(r)));
    p.alt().ifPresent(a -> line("alt " + a));
    close();
  }

  /** Layered directors: the named directors, then what the virtual_server's director holds. */
  private void layout(DirectorLayout l) {
    for (DirectorGroup g : l.groups()) {
      open("director " + q(g.name()));
      line("lb_algo " + g.scheduler().keyword());
      director(g.director());
      line("members " + g.members().stream().map(ConfigWriter::q).collect(Collectors.joining(" ")));
      close();
    }
    if (!l.members().isEmpty()) {
      line("members " + l.members().stream().map(ConfigWriter::q).collect(Collectors.joining(" ")));
    }
    l.altHeader().ifPresent(h -> line("alt_header " + q(h)));
  }

  private void sorry(SorryServer s) {
    line("sorry_server " + Addresses.format(s.id().address()) + " " + s.id().port());
    line("sorry_server_lvs_method " + forwarding(s.forwarding()));
    if (s.inhibit()) {
      line("sorry_server_inhibit");
    }
  }

  private void realServer(RealServer rs, java.time.Duration inheritedSlowStart) {
    // The port as written: for DR/TUN the checkers check it while IPVS gets the service's, and
    // writing the forced port instead would move the checks.
    open("real_server " + Addresses.format(rs.id().address()) + " " + rs.checkPort());
    // Fairway's extensions are written only when used, so that keepalived reads the dump too.
    if (!rs.name().equals(rs.id().toString())) {
      line("name " + q(rs.name()));
    }
    if (!rs.ident().equals(rs.name())) {
      line("ident " + q(rs.ident()));
    }
    line("weight " + number(rs.weight()));
    line("lvs_method " + forwarding(rs.forwarding()));
    if (rs.upperThreshold() != 0) {
      line("uthreshold " + rs.upperThreshold());
    }
    if (rs.lowerThreshold() != 0) {
      line("lthreshold " + rs.lowerThreshold());
    }
    line("inhibit_on_failure " + onOff(rs.inhibitOnFailure()));
    // Written when it differs from what it would inherit (an explicit 0 under a VS default too).
    if (!rs.slowStart().equals(inheritedSlowStart)) {
      line("slow_start " + time(rs.slowStart()));
    }
    if (rs.maxConns() != 0) {
      line("max_conns " + rs.maxConns());
    }
    proxyProtocol(rs.proxyProtocol());
    rs.tls()
        .ifPresent(
            t -> {
              open("tls");
              line("verify " + q(t.verify()));
              t.sni().ifPresent(n -> line("sni " + q(n)));
              close();
            });
    if (rs.http2()) {
      line("http2");
    }
    rs.notifyUp().ifPresent(s -> line("notify_up " + script(s)));
    rs.notifyDown().ifPresent(s -> line("notify_down " + script(s)));
    for (HealthCheck c : rs.checkers()) {
      checker(c);
    }
    close();
  }

  private void timing(CheckerTiming t, boolean connects) {
    line("delay_loop " + time(t.delayLoop()));
    if (connects) {
      line("connect_timeout " + time(t.connectTimeout()));
    }
    line("retry " + t.retry());
    if (t.rise() != 1) {
      // Only when set: a dump of a plain keepalived.conf stays readable by keepalived.
      line("rise " + t.rise());
    }
    line("delay_before_retry " + time(t.delayBeforeRetry()));
    line("warmup " + time(t.warmup()));
    line("alpha " + onOff(t.alpha()));
    line("log_all_failures " + onOff(t.logAllFailures()));
  }

  private void endpoint(Endpoint e) {
    line("connect_ip " + Addresses.format(e.address()));
    line("connect_port " + e.port());
    e.bindTo().ifPresent(b -> line("bindto " + Addresses.format(b)));
    if (e.bindPort() != 0) {
      line("bind_port " + e.bindPort());
    }
    e.bindInterface().ifPresent(i -> line("bind_if " + q(i)));
    if (e.fwmark() != 0) {
      line("fwmark " + e.fwmark());
    }
  }

  private void checker(HealthCheck c) {
    open(c.keyword());
    if (c instanceof BfdCheck) {
      line("alpha " + onOff(c.alpha()));
    } else if (!(c instanceof FileCheck)) {
      timing(c.timing(), !(c instanceof MiscCheck));
    }
    if (c instanceof TcpCheck t) {
      endpoint(t.endpoint());
    } else if (c instanceof PingCheck p) {
      endpoint(p.endpoint());
    } else if (c instanceof HttpCheck h) {
      httpCheck(h);
    } else if (c instanceof MiscCheck m) {
      miscCheck(m);
    } else if (c instanceof DnsCheck d) {
      endpoint(d.endpoint());
      line("type " + d.type());
      line("name " + q(d.name()));
    } else if (c instanceof SmtpCheck s) {
      endpoint(s.endpoint());
      line("helo_name " + q(s.heloName()));
    } else if (c instanceof UdpCheck u) {
      udpCheck(u);
    } else if (c instanceof FileCheck f) {
      line("track_file " + q(f.trackFile()));
      line("weight " + f.weight() + (f.reverse() ? " reverse" : " noreverse"));
    } else if (c instanceof BfdCheck b) {
      line("name " + q(b.name()));
    }
    close();
  }

  private void httpCheck(HttpCheck h) {
    endpoint(h.endpoint());
    line("http_protocol " + h.httpVersion());
    line("fast_recovery " + onOff(h.fastRecovery()));
    if (h.ssl()) {
      line("enable_sni " + onOff(h.enableSni()));
    }
    h.sniName().ifPresent(s -> line("sni_name " + q(s)));
    // Fairway extensions: written only when used, so a plain keepalived.conf dumps as one.
    if (h.verifyCert()) {
      line("verify_cert");
    }
    h.caFile().ifPresent(f -> line("ca_file " + q(f)));
    for (UrlCheck u : h.urls()) {
      url(u);
    }
  }

  private void miscCheck(MiscCheck m) {
    line(
        "misc_path "
            + script(
                new Script(
                    m.script().command(), m.script().argv(), Optional.empty(), Optional.empty())));
    m.script()
        .user()
        .ifPresent(u -> line("user " + q(u) + m.script().group().map(g -> " " + q(g)).orElse("")));
    line("misc_timeout " + time(m.timeout()));
    line("misc_dynamic " + onOff(m.dynamic()));
  }

  private void udpCheck(UdpCheck u) {
    endpoint(u.endpoint());
    if (!u.payload().isEmpty()) {
      line("payload " + u.payload());
    }
    u.requireReply().ifPresent(r -> line(r.isEmpty() ? "require_reply" : "require_reply " + r));
    line("min_reply_length " + u.minReplyLength());
    line("max_reply_length " + u.maxReplyLength());
  }

  private void url(UrlCheck u) {
    open("url");
    line("path " + q(u.path()));
    u.digest().ifPresent(d -> line("digest " + d));
    line(
        "status_code "
            + u.statusCodes().stream().map(StatusRange::toString).collect(Collectors.joining(" ")));
    u.virtualhost().ifPresent(v -> line("virtualhost " + q(v)));
    u.regex().ifPresent(r -> line("regex " + q(r)));
    if (u.regexNoMatch()) {
      line("regex_no_match");
    }
    if (!u.regexOptions().isEmpty()) {
      line(
          "regex_options "
              + u.regexOptions().stream()
                  .map(RegexOption::keyword)
                  .collect(Collectors.joining(" ")));
    }
    if (u.regexMinOffset() != 0) {
      line("regex_min_offset " + u.regexMinOffset());
    }
    u.regexMaxOffset().ifPresent(m -> line("regex_max_offset " + m));
    close();
  }

  /** The announcing keywords (Fairway extensions), written only when used. */
  private void announcement(io.fairway.config.model.Announcement a) {
    a.table().ifPresent(t -> line("announce_table " + t));
    if (!a.withdrawDelay().equals(io.fairway.config.model.Announcement.DEFAULT_WITHDRAW_DELAY)) {
      line("announce_withdraw_delay " + time(a.withdrawDelay()));
    }
    if (a.lvsSloppyTcp()) {
      line("lvs_sloppy_tcp");
    }
  }
}
