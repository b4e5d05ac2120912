package io.fairway.daemon;

import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.DnsCheckSpec;
import io.fairway.check.spec.FileCheckSpec;
import io.fairway.check.spec.HttpCheckSpec;
import io.fairway.check.spec.MiscCheckSpec;
import io.fairway.check.spec.PingCheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.ScriptSpec;
import io.fairway.check.spec.SmtpCheckSpec;
import io.fairway.check.spec.StatusRange;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.UdpCheckSpec;
import io.fairway.check.spec.UrlSpec;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.config.model.BfdCheck;
import io.fairway.config.model.Checker;
import io.fairway.config.model.CheckerTiming;
import io.fairway.config.model.Config;
import io.fairway.config.model.DnsCheck;
import io.fairway.config.model.Endpoint;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.MiscCheck;
import io.fairway.config.model.PingCheck;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.Script;
import io.fairway.config.model.SmtpCheck;
import io.fairway.config.model.TcpCheck;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.UdpCheck;
import io.fairway.config.model.UrlCheck;
import io.fairway.config.model.VirtualServer;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the configuration model into the check engine's specs, under the same virtual and real
 * server names as {@link TableBinding}, so every verdict finds its table entry.
 */
public final class SpecBinding {
  private SpecBinding() {}

  /**
   * The check engine's view of a configuration.
   *
   * @throws IllegalArgumentException a checker Fairway cannot run (BFD_CHECK), naming its file and
   *     line
   */
  public static List<VirtualServerSpec> specs(Config config) {
    List<VirtualServerSpec> out = new ArrayList<>();
    for (VirtualServer vs : config.virtualServers()) {
      List<RealServerSpec> servers = new ArrayList<>();
      for (RealServer rs : vs.realServers()) {
        List<CheckSpec> checks = new ArrayList<>();
        for (Checker c : rs.checkers()) {
          checks.add(check(config, c));
        }
        servers.add(new RealServerSpec(rs.name(), rs.intWeight(), checks,
            rs.notifyUp().map(SpecBinding::script).orElse(null),
            rs.notifyDown().map(SpecBinding::script).orElse(null)));
      }
      // The model already applied keepalived's capping of quorum and hysteresis.
      long quorum = Math.max(1, vs.quorum());
      long hysteresis = Math.max(0, Math.min(vs.hysteresis(), quorum - 1));
      out.add(new VirtualServerSpec(vs.name(), servers, quorum, hysteresis,
          vs.quorumUp().map(SpecBinding::script).orElse(null),
          vs.quorumDown().map(SpecBinding::script).orElse(null),
          vs.sorryServer().isPresent()));
    }
    return out;
  }

  private static CheckSpec check(Config config, Checker c) {
    CheckTiming t = timing(c.timing());
    if (c instanceof TcpCheck k) {
      return new TcpCheckSpec(target(k.endpoint()), t);
    } else if (c instanceof HttpCheck k) {
      List<UrlSpec> urls = new ArrayList<>();
      for (UrlCheck u : k.urls()) {
        urls.add(new UrlSpec(u.path(), u.digest().orElse(null),
            u.statusCodes().stream().map(r -> new StatusRange(r.from(), r.to())).toList(),
            u.virtualhost().orElse(null)));
      }
      return new HttpCheckSpec(target(k.endpoint()), k.ssl(), urls, null,
          k.enableSni() ? k.sniName().orElse(null) : null, false, null, "1.1".equals(k.httpVersion()), t);
    } else if (c instanceof MiscCheck k) {
      return new MiscCheckSpec(script(k.script()), k.timeout(), k.dynamic(), t);
    } else if (c instanceof DnsCheck k) {
      return new DnsCheckSpec(target(k.endpoint()), k.type(), k.name(), t);
    } else if (c instanceof SmtpCheck k) {
      return new SmtpCheckSpec(target(k.endpoint()), k.heloName(), t);
    } else if (c instanceof UdpCheck k) {
      return new UdpCheckSpec(target(k.endpoint()), k.payload(), k.requireReply().orElse(null),
          k.minReplyLength(), k.maxReplyLength(), t);
    } else if (c instanceof PingCheck k) {
      return new PingCheckSpec(k.endpoint().address(), t);
    } else if (c instanceof FileCheck k) {
      TrackFile tf = config.trackFile(k.trackFile()).orElseThrow(() ->
          new IllegalArgumentException(k.location() + ": FILE_CHECK: no track_file " + k.trackFile()));
      return new FileCheckSpec(tf.name(), Path.of(tf.file()), k.weight(), k.reverse(), t);
    } else if (c instanceof BfdCheck k) {
      throw new IllegalArgumentException(k.location() + ": BFD_CHECK is not supported by fairway run");
    }
    throw new IllegalArgumentException(c.location() + ": " + c.keyword() + " is not supported");
  }

  private static CheckTiming timing(CheckerTiming t) {
    return new CheckTiming(t.delayLoop(), t.connectTimeout(), t.retry(), t.delayBeforeRetry(), t.warmup(),
        t.alpha(), 1);
  }

  private static InetSocketAddress target(Endpoint e) {
    return new InetSocketAddress(e.address(), e.port());
  }

  private static ScriptSpec script(Script s) {
    return new ScriptSpec(s.argv(), s.user().orElse(null), s.group().orElse(null));
  }
}
