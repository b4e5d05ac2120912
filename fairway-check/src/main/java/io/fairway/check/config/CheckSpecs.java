package io.fairway.check.config;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckSource;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.DnsCheckSpec;
import io.fairway.check.spec.FileCheckSpec;
import io.fairway.check.spec.HttpCheckSpec;
import io.fairway.check.spec.MiscCheckSpec;
import io.fairway.check.spec.PingCheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.SmtpCheckSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.UdpCheckSpec;
import io.fairway.check.spec.UrlSpec;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.config.model.BfdCheck;
import io.fairway.config.model.CheckerTiming;
import io.fairway.config.model.Config;
import io.fairway.config.model.DnsCheck;
import io.fairway.config.model.Endpoint;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.HealthCheck;
import io.fairway.config.model.HttpCheck;
import io.fairway.config.model.MiscCheck;
import io.fairway.config.model.PingCheck;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.RegexOption;
import io.fairway.config.model.SmtpCheck;
import io.fairway.config.model.TcpCheck;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.UdpCheck;
import io.fairway.config.model.UrlCheck;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.base.Script;
import io.fairway.os.script.ScriptExecutor;
import io.fairway.os.script.ScriptRejectedException;
import io.fairway.os.script.ScriptSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Turns a parsed {@code keepalived.conf} into the engine's specs, checking at load what can be
 * checked (scripts, track files, unsupported keywords) so every error names {@code file:line}.
 *
 * <p>Names: a virtual server is named by {@link VirtualServer#name()} and a real server by {@link
 * RealServer#name()} (both default to {@code IP:PORT}); those are the names in every verdict event.
 */
public final class CheckSpecs {
  private CheckSpecs() {}

  /**
   * Converts every virtual server.
   *
   * @throws CheckConfigException with a {@code file:line:} prefix for the first checker that cannot
   *     work
   */
  public static List<VirtualServerSpec> from(Config config) {
    ScriptExecutor validator = new ScriptExecutor(1, 1);
    try {
      List<VirtualServerSpec> out = new ArrayList<>();
      for (VirtualServer vs : config.virtualServers()) {
        out.add(virtualServer(config, vs, validator));
      }
      return out;
    } catch (ScriptRejectedException e) {
      throw new CheckConfigException(e.reason());
    } finally {
      validator.close();
    }
  }

  private static VirtualServerSpec virtualServer(
      Config config, VirtualServer vs, ScriptExecutor validator) {
    List<RealServerSpec> servers = new ArrayList<>();
    for (RealServer rs : vs.realServers()) {
      List<CheckSpec> checks = new ArrayList<>();
      for (HealthCheck c : rs.checkers()) {
        checks.add(checker(config, c, validator));
      }
      ScriptSpec up =
          script(rs.notifyScripts().up().orElse(null), validator, rs.location() + ": notify_up");
      ScriptSpec down =
          script(
              rs.notifyScripts().down().orElse(null), validator, rs.location() + ": notify_down");
      servers.add(new RealServerSpec(rs.name(), rs.intWeight(), checks, up, down));
    }
    VirtualServerSpec spec =
        VirtualServerSpec.of(vs.name(), servers, vs.quorum().quorum(), vs.quorum().hysteresis());
    return spec.withScripts(
            script(vs.quorum().up().orElse(null), validator, vs.location() + ": quorum_up"),
            script(vs.quorum().down().orElse(null), validator, vs.location() + ": quorum_down"))
        .withSorryServer(vs.sorry().server().isPresent())
        .withOmega(vs.omega());
  }

  private static @Nullable ScriptSpec script(
      @Nullable Script s, ScriptExecutor validator, String where) {
    if (s == null) {
      return null;
    }
    ScriptSpec spec = new ScriptSpec(s.argv(), s.user().orElse(null), s.group().orElse(null));
    validator.validate(spec, where);
    return spec;
  }

  static CheckTiming timing(CheckerTiming t) {
    return new CheckTiming(
        t.delayLoop(),
        t.connectTimeout(),
        t.retry(),
        t.delayBeforeRetry(),
        t.warmup(),
        t.alpha(),
        t.rise(),
        t.logAllFailures());
  }

  private static InetSocketAddress target(Endpoint e) {
    return new InetSocketAddress(e.address(), e.port());
  }

  private static CheckSpec checker(Config config, HealthCheck c, ScriptExecutor validator) {
    String where = c.location() + ": " + c.keyword();
    Endpoint ep = endpoint(c);
    try {
      CheckSource src = ep == null ? CheckSource.NONE : source(ep);
      // keepalived tests checker_log_all_failures || log_all_failures at every failure, so the
      // global
      // keyword turns it on even for a checker that says "log_all_failures off".
      CheckTiming t = timing(c.timing());
      if (config.globalDefs().checkerLogAllFailures()) {
        t = t.withLogAllFailures(true);
      }
      if (c instanceof TcpCheck k) {
        return new TcpCheckSpec(target(k.endpoint()), src, t);
      } else if (c instanceof HttpCheck k) {
        return http(config, k, src, t, where);
      } else if (c instanceof MiscCheck k) {
        ScriptSpec s =
            Objects.requireNonNull(
                script(k.script(), validator, where), "a MISC_CHECK always has a script");
        return new MiscCheckSpec(s, k.timeout(), k.dynamic(), t);
      } else if (c instanceof DnsCheck k) {
        return new DnsCheckSpec(target(k.endpoint()), src, k.type(), k.name(), t);
      } else if (c instanceof SmtpCheck k) {
        return new SmtpCheckSpec(target(k.endpoint()), src, k.heloName(), t);
      } else if (c instanceof UdpCheck k) {
        return new UdpCheckSpec(
            target(k.endpoint()),
            src,
            k.payload(),
            k.requireReply().orElse(null),
            k.minReplyLength(),
            k.maxReplyLength(),
            t);
      } else if (c instanceof PingCheck k) {
        return new PingCheckSpec(k.endpoint().address(), src, t);
      } else if (c instanceof FileCheck k) {
        return file(config, k, t, where);
      } else if (c instanceof BfdCheck) {
        throw new CheckConfigException(where + " is not supported (Fairway has no BFD)");
      }
      throw new CheckConfigException(where + " is not supported");
    } catch (IllegalArgumentException e) {
      throw new CheckConfigException(where + ": " + e.getMessage());
    }
  }

  /**
   * The check's source. The config parser already refused a bindto of the wrong family, a bind_port
   * out of range and a bad interface name with their own lines; this re-checks for models built by
   * other means.
   */
  private static CheckSource source(Endpoint ep) {
    CheckSource s =
        new CheckSource(
            ep.bindTo().orElse(null), ep.bindPort(), ep.bindInterface().orElse(null), ep.fwmark());
    s.localAddress(ep.address()); // throws on a family mismatch
    return s;
  }

  private static @Nullable Endpoint endpoint(HealthCheck c) {
    if (c instanceof TcpCheck k) {
      return k.endpoint();
    } else if (c instanceof HttpCheck k) {
      return k.endpoint();
    } else if (c instanceof DnsCheck k) {
      return k.endpoint();
    } else if (c instanceof SmtpCheck k) {
      return k.endpoint();
    } else if (c instanceof UdpCheck k) {
      return k.endpoint();
    } else if (c instanceof PingCheck k) {
      return k.endpoint();
    }
    return null;
  }

  private static HttpCheckSpec http(
      Config config, HttpCheck k, CheckSource src, CheckTiming t, String where) {
    List<UrlSpec> urls = new ArrayList<>();
    for (UrlCheck u : k.urls()) {
      urls.add(
          new UrlSpec(
              u.path(),
              u.digest().orElse(null),
              u.statusCodes(),
              u.virtualhost().orElse(null),
              u.regex().map(r -> regex(u, r)).orElse(null)));
    }
    // keepalived's enable_sni sends sni_name, else the virtualhost.
    String sni = null;
    if (k.ssl() && k.enableSni()) {
      sni = k.sniName().orElse(urls.isEmpty() ? null : urls.get(0).virtualHost());
    }
    // verify_cert's CA: the checker's ca_file, else keepalived's global SSL { ca }, else the JDK's
    // store.
    Path ca = k.caFile().or(() -> config.ssl().flatMap(s -> s.ca())).map(Path::of).orElse(null);
    if (k.verifyCert() && ca != null && !Files.isReadable(ca)) {
      throw new CheckConfigException(where + ": cannot read CA file " + ca + " for verify_cert");
    }
    return HttpCheckSpec.builder(target(k.endpoint()), t)
        .tls(k.ssl())
        .urls(urls)
        .sniName(sni)
        .verifyCertificate(k.verifyCert())
        .caFile(ca)
        .http11("1.1".equals(k.httpVersion()))
        .source(src)
        .fastRecovery(k.fastRecovery())
        .connectionClose(!"1.0".equals(k.httpVersion()))
        .build();
  }

  private static UrlSpec.Regex regex(UrlCheck u, String pattern) {
    int flags = 0;
    for (RegexOption o : u.regexOptions()) {
      flags |= o.javaFlags();
    }
    return new UrlSpec.Regex(
        pattern,
        flags,
        u.regexNoMatch(),
        u.regexMinOffset(),
        u.regexMaxOffset().orElse(-1),
        u.regexOptions().contains(RegexOption.UTF),
        u.regexOptions().contains(RegexOption.FIRSTLINE));
  }

  private static FileCheckSpec file(Config config, FileCheck k, CheckTiming t, String where) {
    TrackFile tf =
        config
            .trackFile(k.trackFile())
            .orElseThrow(
                () ->
                    new CheckConfigException(
                        where + ": track_file " + k.trackFile() + " is not defined"));
    Path p = Path.of(tf.file());
    if (tf.initValue().isPresent() && (tf.overwrite() || !Files.exists(p))) {
      try {
        Files.writeString(p, tf.initValue().get() + "\n");
      } catch (IOException e) {
        throw new CheckConfigException(
            tf.location()
                + ": track_file "
                + tf.name()
                + ": cannot write init_file "
                + p
                + ": "
                + e.getMessage());
      }
    }
    if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
      throw new CheckConfigException(where + ": track_file " + tf.name() + ": cannot read " + p);
    }
    return new FileCheckSpec(tf.name(), p, k.weight(), k.reverse(), t);
  }
}
