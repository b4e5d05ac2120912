package io.fairway.vrrp;

import io.fairway.config.model.base.Addresses;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.table.AddressFamily;
import io.fairway.vrrp.io.Link;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The checks of a configuration against the running system before anything changes (interfaces
 * exist, virtual addresses are not on another interface, adverts have an address to come from: an
 * IPv4 address, or for IPv6 a link-local one), so that a start or reload that cannot work is
 * refused whole.
 */
final class SystemCheck {
  private SystemCheck() {}

  /**
   * @param ours addresses our running instances hold: they move with the reload, so another
   *     interface holding one is no conflict
   * @return each instance's link, by instance name
   * @throws VrrpStartException one {@code FILE:LINE: message} line per problem
   */
  static Map<String, Link> links(VrrpConfig c, Set<InetAddress> ours) throws VrrpStartException {
    List<String> problems = new ArrayList<>();
    Map<String, Link> links = new HashMap<>();
    for (VrrpInstance i : c.instances()) {
      Optional<Link> link = Link.read(i.interfaceName(), RunningInstance.vipsOf(i));
      if (link.isEmpty()) {
        problems.add(
            i.location()
                + ": vrrp_instance "
                + i.name()
                + ": interface "
                + i.interfaceName()
                + " does not exist");
        continue;
      }
      links.put(i.name(), link.get());
      checkAddresses(i, ours, problems);
      checkTrackInterfaces(i, problems);
      checkAdvertSource(i, link.get(), problems);
    }
    if (!problems.isEmpty()) {
      throw new VrrpStartException(problems);
    }
    return links;
  }

  /** Adverts go out from the unicast source, else the interface's own address of the family. */
  private static void checkAdvertSource(VrrpInstance i, Link link, List<String> problems) {
    if (i.unicastSource().isPresent()) {
      return;
    }
    boolean v4 = i.family() == AddressFamily.INET;
    if (v4 ? link.ipv4().isEmpty() : link.ipv6LinkLocal().isEmpty()) {
      problems.add(
          i.location()
              + ": vrrp_instance "
              + i.name()
              + ": interface "
              + i.interfaceName()
              + (v4
                  ? " has no IPv4 address to send adverts from"
                  : " has no IPv6 link-local address to send adverts from"));
    }
  }

  private static void checkAddresses(VrrpInstance i, Set<InetAddress> ours, List<String> problems) {
    for (VirtualAddress a : i.allAddresses()) {
      String dev = a.deviceOr(i.interfaceName());
      if (Link.read(dev, List.of()).isEmpty()) {
        problems.add(
            a.location()
                + ": vrrp_instance "
                + i.name()
                + ": interface "
                + dev
                + " of "
                + a
                + " does not exist");
        continue;
      }
      if (ours.contains(a.address())) {
        continue; // held by one of our instances: moves with the reload
      }
      Link.holderOtherThan(a.address(), dev)
          .ifPresent(
              other ->
                  problems.add(
                      a.location()
                          + ": vrrp_instance "
                          + i.name()
                          + ": "
                          + Addresses.format(a.address())
                          + " is already on interface "
                          + other));
    }
  }

  private static void checkTrackInterfaces(VrrpInstance i, List<String> problems) {
    for (Track t : i.trackInterfaces()) {
      if (Link.read(t.name(), List.of()).isEmpty()) {
        problems.add(
            i.location()
                + ": vrrp_instance "
                + i.name()
                + ": track_interface "
                + t.name()
                + " does not exist");
      }
    }
  }
}
