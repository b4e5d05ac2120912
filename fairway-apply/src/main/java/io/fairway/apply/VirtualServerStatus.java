package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.Ramp;
import io.fairway.table.Service;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the applier believes about one virtual server, for {@code fairway status} and logs.
 *
 * @param name the virtual server's name
 * @param services its kernel services
 * @param initialized whether {@link Applier#init} has run for it
 * @param quorumUp whether it has quorum
 * @param sorryServer the sorry server, or {@code null}
 * @param sorryServing whether the sorry server is serving (quorum lost)
 * @param servers its real servers in configuration order
 */
public record VirtualServerStatus(
    String name,
    List<Service> services,
    boolean initialized,
    boolean quorumUp,
    @Nullable Dest sorryServer,
    boolean sorryServing,
    List<RealServerStatus> servers) {

  public VirtualServerStatus {
    services = List.copyOf(services);
    servers = List.copyOf(servers);
  }

  /**
   * One real server.
   *
   * @param name the real server's name
   * @param dest its configured destination
   * @param alive the last verdict
   * @param present whether a destination for it is in the table
   * @param weight its effective weight (configured plus dynamic contributions, clamped)
   * @param inhibit whether it drains instead of being removed
   * @param rampWeight while its slow start runs as weights stepped in the table (the kernel), the
   *     weight it has there now (at least 1); 0 when it is not ramping or the table ramps in its
   *     own scheduler
   * @param ramp while its slow start runs, how far into it the server is and its length ({@code
   *     slow_start}); {@link Ramp#NONE} otherwise
   * @param standby a backup (a higher SRV priority) kept out of the table because a server of a
   *     lower tier is up ({@code Tiers})
   */
  public record RealServerStatus(
      String name,
      Dest dest,
      boolean alive,
      boolean present,
      int weight,
      boolean inhibit,
      int rampWeight,
      Ramp ramp,
      boolean standby) {

    /** Whether its slow start is running. */
    public boolean ramping() {
      return rampWeight > 0 || !ramp.duration().isZero();
    }

    /** Whether it ramps in the table's scheduler rather than by a stepped weight. */
    public boolean rampsInScheduler() {
      return rampWeight == 0 && !ramp.duration().isZero();
    }
  }
}
