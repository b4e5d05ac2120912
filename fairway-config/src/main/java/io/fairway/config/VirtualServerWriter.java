package io.fairway.config;

import static io.fairway.config.DumpText.forwarding;
import static io.fairway.config.DumpText.onOff;
import static io.fairway.config.DumpText.q;
import static io.fairway.config.DumpText.script;
import static io.fairway.config.DumpText.time;

import io.fairway.config.model.DnsDiscovery;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.SchedulerFlag;
import io.fairway.config.model.SorryServer;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerId;
import io.fairway.config.model.base.Addresses;

/**
 * Writes a {@code virtual_server} block: the header its id was read from, scheduling, forwarding,
 * persistence, quorum, Fairway's extensions, then its real servers and {@code real_server_dns}
 * blocks.
 *
 * <p>Why apart: the virtual server is the largest block; the parts it shares with other blocks
 * (directors, proxy keywords, real servers) are their own writers, called here in the order
 * keepalived documents.
 */
final class VirtualServerWriter {
  private final DumpText out;
  private final DirectorWriter directors;
  private final ProxySettingsWriter proxy;
  private final RealServerWriter realServers;

  VirtualServerWriter(DumpText out) {
    this.out = out;
    this.directors = new DirectorWriter(out);
    this.proxy = new ProxySettingsWriter(out);
    this.realServers = new RealServerWriter(out);
  }

  void write(VirtualServer vs) {
    VirtualServerId id = vs.id();
    header(id);
    if (!isDefaultName(vs)) {
      out.line("name " + q(vs.name()));
    }
    out.line("lb_algo " + vs.scheduling().scheduler().keyword());
    directors.director(vs.scheduling().director());
    directors.layout(vs.scheduling().layout());
    if (vs.scheduling().hashBalanceFactor() != 0) {
      out.line("hash_balance_factor " + vs.scheduling().hashBalanceFactor());
    }
    out.line("lb_kind " + forwarding(vs.forwarding()));
    proxy.proxySettings(vs.proxy());
    proxy.accessLogs(vs.accessLogs());
    proxy.tls(vs.proxy().tls());
    if (id instanceof VirtualServerId.Address a) {
      out.line("protocol " + a.protocol());
    } else if (id instanceof VirtualServerId.Group g) {
      out.line("protocol " + g.protocol());
    }
    vs.scheduling().flags().stream().map(SchedulerFlag::keyword).sorted().forEach(out::line);
    persistence(vs);
    quorum(vs);
    vs.sorry().server().ifPresent(this::sorry);
    extensions(vs);
    for (RealServer rs : vs.realServers()) {
      realServers.write(rs, vs.slowStart());
    }
    for (DnsDiscovery d : vs.discovery()) {
      DumpText template = new DumpText();
      new RealServerWriter(template).write(d.template(), vs.slowStart());
      DnsBlockWriter.lines(d, template.text()).forEach(out::line);
    }
    out.close();
  }

  /** Opens the virtual_server block with the header line its id was read from. */
  private void header(VirtualServerId id) {
    if (id instanceof VirtualServerId.Address a) {
      out.open("virtual_server " + Addresses.format(a.address()) + " " + a.port());
    } else if (id instanceof VirtualServerId.Fwmark f) {
      out.open("virtual_server fwmark " + f.fwmark());
      out.line("ip_family " + Addresses.keyword(f.family()));
    } else {
      out.open("virtual_server group " + q(((VirtualServerId.Group) id).name()));
    }
  }

  private void persistence(VirtualServer vs) {
    if (vs.persistent()) {
      out.line("persistence_timeout " + vs.persistence().timeout().toSeconds());
    }
    vs.persistence().granularity().ifPresent(p -> out.line("persistence_granularity " + mask(p)));
    vs.persistence().engine().ifPresent(e -> out.line("persistence_engine " + q(e)));
    if (vs.haSuspend()) {
      out.line("ha_suspend");
    }
  }

  private void quorum(VirtualServer vs) {
    out.line("omega " + onOff(vs.omega()));
    out.line("quorum " + vs.quorum().quorum());
    out.line("hysteresis " + vs.quorum().hysteresis());
    vs.quorum().up().ifPresent(s -> out.line("quorum_up " + script(s)));
    vs.quorum().down().ifPresent(s -> out.line("quorum_down " + script(s)));
  }

  /** Fairway extensions, written only when used (keepalived reads the dump otherwise). */
  private void extensions(VirtualServer vs) {
    if (vs.sorry().overflow()) {
      out.line("overflow_to_sorry_server");
    }
    if (!vs.slowStart().isZero()) {
      out.line("slow_start " + time(vs.slowStart()));
    }
    if (vs.announce()) {
      out.line("announce");
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

  private void sorry(SorryServer s) {
    out.line("sorry_server " + Addresses.format(s.id().address()) + " " + s.id().port());
    out.line("sorry_server_lvs_method " + forwarding(s.forwarding()));
    if (s.inhibit()) {
      out.line("sorry_server_inhibit");
    }
  }
}
