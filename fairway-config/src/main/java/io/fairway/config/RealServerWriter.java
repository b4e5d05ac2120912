package io.fairway.config;

import static io.fairway.config.DumpText.forwarding;
import static io.fairway.config.DumpText.number;
import static io.fairway.config.DumpText.onOff;
import static io.fairway.config.DumpText.q;
import static io.fairway.config.DumpText.script;
import static io.fairway.config.DumpText.time;

import io.fairway.config.model.HealthCheck;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.base.Addresses;
import java.time.Duration;

/**
 * Writes a {@code real_server} block: its weight, forwarding and thresholds, Fairway's extensions
 * when used, its notify scripts and its checkers.
 *
 * <p>Why apart: a real server is written in two places, in its virtual server and as the template
 * of a {@code real_server_dns} block, and both must be the same text.
 */
final class RealServerWriter {
  private final DumpText out;
  private final ProxySettingsWriter proxy;
  private final CheckerWriter checkers;

  RealServerWriter(DumpText out) {
    this.out = out;
    this.proxy = new ProxySettingsWriter(out);
    this.checkers = new CheckerWriter(out);
  }

  void write(RealServer rs, Duration inheritedSlowStart) {
    // The port as written: for DR/TUN the checkers check it while IPVS gets the service's, and
    // writing the forced port instead would move the checks.
    out.open("real_server " + Addresses.format(rs.id().address()) + " " + rs.checkPort());
    // Fairway's extensions are written only when used, so that keepalived reads the dump too.
    if (!rs.name().equals(rs.id().toString())) {
      out.line("name " + q(rs.name()));
    }
    if (!rs.ident().equals(rs.name())) {
      out.line("ident " + q(rs.ident()));
    }
    out.line("weight " + number(rs.weight()));
    out.line("lvs_method " + forwarding(rs.forwarding()));
    if (rs.thresholds().upper() != 0) {
      out.line("uthreshold " + rs.thresholds().upper());
    }
    if (rs.thresholds().lower() != 0) {
      out.line("lthreshold " + rs.thresholds().lower());
    }
    out.line("inhibit_on_failure " + onOff(rs.inhibitOnFailure()));
    // Written when it differs from what it would inherit (an explicit 0 under a VS default too).
    if (!rs.slowStart().equals(inheritedSlowStart)) {
      out.line("slow_start " + time(rs.slowStart()));
    }
    if (rs.backend().maxConns() != 0) {
      out.line("max_conns " + rs.backend().maxConns());
    }
    proxy.proxyProtocol(rs.backend().proxyProtocol());
    rs.backend()
        .tls()
        .ifPresent(
            t -> {
              out.open("tls");
              out.line("verify " + q(t.verify()));
              t.sni().ifPresent(n -> out.line("sni " + q(n)));
              out.close();
            });
    if (rs.backend().http2()) {
      out.line("http2");
    }
    rs.notifyScripts().up().ifPresent(s -> out.line("notify_up " + script(s)));
    rs.notifyScripts().down().ifPresent(s -> out.line("notify_down " + script(s)));
    for (HealthCheck c : rs.checkers()) {
      checkers.write(c);
    }
    out.close();
  }
}
