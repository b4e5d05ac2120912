package io.fairway.daemon;

import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.VirtualServerSpec;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Carries verdicts across a reload by choosing where a restarted check engine starts.
 *
 * <p>A reload restarts the check engine, whose servers start alive unless alpha. Left alone, a
 * server that had failed would start "alive" in the new engine, whose next success would then be no
 * transition at all — and the server would never return to the pool. keepalived avoids this by
 * migrating checker state (migrate_checkers, "do not re-add failed RS instantly on reload"). The
 * same outcome here: a kept server that was down starts alpha (down until a check passes), one that
 * was up starts non-alpha (keepalived PR #1182: a new alpha checker must not take an up server
 * down). New servers keep their configured alpha.
 */
final class AlphaOverride {
  private AlphaOverride() {}

  /** Verdicts the applier holds for kept servers: {@code null} for a server it does not know. */
  interface Verdicts {
    @Nullable Boolean alive(String virtualServer, String realServer);
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
        servers.add(
            new RealServerSpec(rs.name(), rs.weight(), checks, rs.notifyUp(), rs.notifyDown()));
      }
      out.add(
          new VirtualServerSpec(
              vs.name(),
              servers,
              vs.quorum(),
              vs.hysteresis(),
              vs.quorumUp(),
              vs.quorumDown(),
              vs.hasSorryServer(),
              vs.omega()));
    }
    return out;
  }

  static CheckSpec withAlpha(CheckSpec c, boolean alpha) {
    return c.withTiming(c.timing().withAlpha(alpha));
  }
}
