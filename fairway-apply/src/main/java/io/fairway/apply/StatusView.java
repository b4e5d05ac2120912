package io.fairway.apply;

import io.fairway.table.Ramp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** What the applier believes, as {@link VirtualServerStatus} for status output. */
final class StatusView {
  private StatusView() {}

  static List<VirtualServerStatus> of(Collection<VsState> vss, RampSteps ramps) {
    List<VirtualServerStatus> out = new ArrayList<>();
    for (VsState vs : vss) {
      List<VirtualServerStatus.RealServerStatus> servers = new ArrayList<>();
      for (RsState rs : vs.servers.values()) {
        servers.add(server(vs, rs, ramps));
      }
      out.add(
          new VirtualServerStatus(
              vs.config.name(),
              vs.config.services(),
              vs.initialized(),
              vs.quorumUp(),
              vs.config.sorryServer(),
              vs.sorryServing(),
              servers));
    }
    return out;
  }

  private static VirtualServerStatus.RealServerStatus server(
      VsState vs, RsState rs, RampSteps ramps) {
    long now = ramps.now();
    boolean rampingNow = ramps.showing(rs, now);
    return new VirtualServerStatus.RealServerStatus(
        rs.config.name(),
        rs.config.dest(),
        rs.alive(),
        rs.present(),
        rs.weight(),
        rs.config.inhibit(),
        rampingNow && !ramps.inTable() ? Math.max(1, ramps.current(rs)) : 0,
        rampingNow
            ? new Ramp(Duration.ofNanos(Math.max(0, now - rs.rampStart())), rs.config.slowStart())
            : Ramp.NONE,
        Tiers.standby(vs, rs));
  }
}
