package io.fairway.director.sched;

import io.fairway.director.Backend;
import java.net.InetSocketAddress;

/**
 * A real server as a {@link Backend} for {@link SchedDirector}: the kernel schedulers need its
 * address (mh hashes it, the kernel identifies servers by it) and its connection thresholds.
 *
 * @param name what {@code fairway pick} prints; {@code IP:PORT} when null
 * @param address the server's address and port
 * @param upperThreshold {@code uthreshold} (0 = none)
 * @param lowerThreshold {@code lthreshold} (0 = 3/4 of uthreshold)
 */
public record SchedServer(
    String name, InetSocketAddress address, int upperThreshold, int lowerThreshold)
    implements Backend {

  public SchedServer {
    if (address == null || address.getAddress() == null) {
      throw new IllegalArgumentException("real server needs a literal IP address");
    }
    if (name == null || name.isEmpty())
      name = DestSpec.defaultName(address.getAddress(), address.getPort());
    // Same checks as the kernel (ERANGE), with the reason spelled out.
    new DestSpec(name, address.getAddress(), address.getPort(), 0, upperThreshold, lowerThreshold);
  }

  /** {@code IP:PORT} or {@code [IPv6]:PORT}, no thresholds. */
  public static SchedServer parse(String ipPort) {
    InetSocketAddress a = Flows.parseHostPort(ipPort, "real server");
    return new SchedServer(DestSpec.defaultName(a.getAddress(), a.getPort()), a, 0, 0);
  }

  DestSpec spec(int weight) {
    return new DestSpec(
        name, address.getAddress(), address.getPort(), weight, upperThreshold, lowerThreshold);
  }

  @Override
  public String toString() {
    return name;
  }
}
