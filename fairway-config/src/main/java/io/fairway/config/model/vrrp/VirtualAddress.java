package io.fairway.config.model.vrrp;

import io.fairway.config.model.base.Location;
import java.net.InetAddress;
import java.util.Optional;

/**
 * One line of {@code virtual_ipaddress { ADDR[/PREFIX] [dev IF] [label L] [scope S] [no_track] }}.
 *
 * @param location the line
 * @param address the address
 * @param prefixLength the prefix (default 32 / 128, as keepalived)
 * @param device {@code dev}: the interface to add it to (default: the instance's)
 * @param label {@code label} (IPv4 only)
 * @param scope {@code scope}: the rtnetlink scope number (0 universe, 200 site, 253 link, 254
 *     host); universe by default
 * @param noTrack {@code no_track}: a down {@code dev} does not put the instance in FAULT
 */
public record VirtualAddress(
    Location location,
    InetAddress address,
    int prefixLength,
    Optional<String> device,
    Optional<String> label,
    int scope,
    boolean noTrack) {

  /** The interface the address goes on. */
  public String deviceOr(String instanceInterface) {
    return device.orElse(instanceInterface);
  }

  @Override
  public String toString() {
    return io.fairway.config.model.base.Addresses.format(address)
        + "/"
        + prefixLength
        + device.map(d -> " dev " + d).orElse("");
  }
}
