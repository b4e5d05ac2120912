package io.fairway.check.spec;

import io.fairway.os.script.ScriptSpec;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A virtual server as the check engine sees it: its real servers and quorum settings.
 *
 * <p>Quorum and hysteresis are taken as keepalived leaves them after validation: quorum capped to
 * the sum of configured weights, hysteresis to {@code quorum - 1}. {@link #of} applies that
 * capping.
 *
 * @param name stable name used in every event, e.g. {@code "10.0.0.1:80/TCP"}
 * @param realServers its real servers (names unique)
 * @param quorum minimum live weight ({@code >= 1})
 * @param hysteresis margin around quorum ({@code 0..quorum-1})
 * @param quorumUp script run when quorum is gained (also at start), or {@code null}
 * @param quorumDown script run when quorum is lost, or {@code null}
 * @param hasSorryServer whether a sorry server is configured: keepalived then announces "starting
 *     with quorum down" at start, otherwise it says nothing until quorum is first gained
 */
public record VirtualServerSpec(
    String name,
    List<RealServerSpec> realServers,
    long quorum,
    long hysteresis,
    @Nullable ScriptSpec quorumUp,
    @Nullable ScriptSpec quorumDown,
    boolean hasSorryServer,
    boolean omega) {
  public VirtualServerSpec {
    Objects.requireNonNull(name, "name");
    realServers = List.copyOf(realServers);
    if (quorum < 1) {
      throw new IllegalArgumentException(
          "virtual server " + name + ": quorum must be >= 1, got " + quorum);
    }
    if (hysteresis < 0 || (hysteresis > 0 && hysteresis >= quorum)) {
      throw new IllegalArgumentException(
          "virtual server "
              + name
              + ": hysteresis must be within 0.."
              + (quorum - 1)
              + ", got "
              + hysteresis);
    }
    var names = new HashSet<String>();
    for (RealServerSpec rs : realServers) {
      if (!names.add(rs.name())) {
        throw new IllegalArgumentException(
            "virtual server " + name + ": duplicate real server " + rs.name());
      }
    }
  }

  /**
   * Without omega (the form before omega existed; kept so callers written against it still
   * compile).
   */
  public VirtualServerSpec(
      String name,
      List<RealServerSpec> realServers,
      long quorum,
      long hysteresis,
      @Nullable ScriptSpec quorumUp,
      @Nullable ScriptSpec quorumDown,
      boolean hasSorryServer) {
    this(name, realServers, quorum, hysteresis, quorumUp, quorumDown, hasSorryServer, false);
  }

  /**
   * A virtual server with keepalived's validation applied: quorum capped to the total configured
   * weight (at least 1) and hysteresis to {@code quorum - 1}.
   */
  public static VirtualServerSpec of(
      String name, List<RealServerSpec> realServers, long quorum, long hysteresis) {
    long total = realServers.stream().mapToLong(RealServerSpec::weight).sum();
    long q = Math.max(1, Math.min(quorum, Math.max(total, 1)));
    long h = Math.max(0, Math.min(hysteresis, q - 1));
    return new VirtualServerSpec(name, realServers, q, h, null, null, false, false);
  }

  public VirtualServerSpec withScripts(@Nullable ScriptSpec up, @Nullable ScriptSpec down) {
    return new VirtualServerSpec(
        name, realServers, quorum, hysteresis, up, down, hasSorryServer, omega);
  }

  public VirtualServerSpec withSorryServer(boolean sorry) {
    return new VirtualServerSpec(
        name, realServers, quorum, hysteresis, quorumUp, quorumDown, sorry, omega);
  }

  public VirtualServerSpec withOmega(boolean newOmega) {
    return new VirtualServerSpec(
        name, realServers, quorum, hysteresis, quorumUp, quorumDown, hasSorryServer, newOmega);
  }
}
