package io.fairway.daemon;

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
import io.fairway.check.spec.VirtualServerSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * Carries verdicts across a reload by choosing where a restarted check engine starts.
 *
 * <p>A reload restarts the check engine, whose servers start alive unless alpha. Left alone, a
 * server that had failed would start "alive" in the new engine, whose next success would then be
 * no transition at all — and the server would never return to the pool. keepalived avoids this by
 * migrating checker state (migrate_checkers, "do not re-add failed RS instantly on reload"). The
 * same outcome here: a kept server that was down starts alpha (down until a check passes), one
 * that was up starts non-alpha (keepalived PR #1182: a new alpha checker must not take an up
 * server down). New servers keep their configured alpha.
 */
final class AlphaOverride {
  private AlphaOverride() {}

  /** Verdicts the applier holds for kept servers: {@code null} for a server it does not know. */
  interface Verdicts {
    Boolean alive(String virtualServer, String realServer);
  }

  static List<VirtualServerSpec> apply(List<VirtualServerSpec> specs, Verdicts verdicts) {
    List<VirtualServerSpec> out = new ArrayList<>();
    for (VirtualServerSpec vs : specs) {
      List<RealServerSpec> servers = new ArrayList<>();
      for (RealServerSpec rs : vs.realServers()) {
        Boolean alive = verdicts.alive(vs.name(), rs.name());
        if (alive == null) {
          servers.add(rs);
          continue;
        }
        List<CheckSpec> checks = new ArrayList<>();
        for (CheckSpec c : rs.checkers()) {
          checks.add(withAlpha(c, !alive));
        }
        servers.add(new RealServerSpec(rs.name(), rs.weight(), checks, rs.notifyUp(), rs.notifyDown()));
      }
      out.add(new VirtualServerSpec(vs.name(), servers, vs.quorum(), vs.hysteresis(), vs.quorumUp(),
          vs.quorumDown(), vs.hasSorryServer(), vs.omega()));
    }
    return out;
  }

  static CheckSpec withAlpha(CheckSpec c, boolean alpha) {
    CheckTiming t = c.timing().withAlpha(alpha);
    if (c instanceof TcpCheckSpec s) {
      return new TcpCheckSpec(s.target(), t);
    } else if (c instanceof HttpCheckSpec s) {
      return new HttpCheckSpec(s.target(), s.tls(), s.urls(), s.virtualHost(), s.sniName(),
          s.verifyCertificate(), s.caFile(), s.http11(), t);
    } else if (c instanceof MiscCheckSpec s) {
      return new MiscCheckSpec(s.script(), s.timeout(), s.dynamic(), t);
    } else if (c instanceof DnsCheckSpec s) {
      return new DnsCheckSpec(s.target(), s.type(), s.name(), t);
    } else if (c instanceof SmtpCheckSpec s) {
      return new SmtpCheckSpec(s.target(), s.heloName(), t);
    } else if (c instanceof UdpCheckSpec s) {
      return new UdpCheckSpec(s.target(), s.payloadHex(), s.requireReply(), s.minReplyLength(),
          s.maxReplyLength(), t);
    } else if (c instanceof PingCheckSpec s) {
      return new PingCheckSpec(s.target(), t);
    } else if (c instanceof FileCheckSpec s) {
      return new FileCheckSpec(s.name(), s.file(), s.weight(), s.reverse(), t);
    }
    throw new IllegalArgumentException("unknown checker " + c.describe());
  }
}
