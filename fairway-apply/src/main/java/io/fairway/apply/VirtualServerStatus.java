package io.fairway.apply;

import io.fairway.table.Dest;
import io.fairway.table.Service;
import java.util.List;

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
    Dest sorryServer,
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
   * @param rampWeight while its slow start runs, the weight it has now (at least 1); 0 when it is
   *     not ramping
   */
  public record RealServerStatus(
      String name, Dest dest, boolean alive, boolean present, int weight, boolean inhibit,
      int rampWeight) {

    /** A server that is not ramping. */
    public RealServerStatus(
        String name, Dest dest, boolean alive, boolean present, int weight, boolean inhibit) {
      this(name, dest, alive, present, weight, inhibit, 0);
    }

    /** Whether its slow start is running. */
    public boolean ramping() {
      return rampWeight > 0;
    }
  }
}
