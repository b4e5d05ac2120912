package io.fairway.vrrp;

import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.vrrp.io.InterfaceAddresses;
import io.fairway.vrrp.io.Link;
import io.fairway.vrrp.io.NeighbourAnnouncer;
import io.fairway.vrrp.view.DropKind;
import java.io.Closeable;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An instance's virtual addresses on the system: added when it becomes master, removed when it
 * stops being one, and announced to the segment (gratuitous ARP, unsolicited neighbour
 * advertisement). Failures are counted and logged, never thrown: the state machine has moved on.
 * Used on the event thread only.
 */
final class AddressControl implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(AddressControl.class);

  private final InterfaceAddresses netlink;
  private final NeighbourAnnouncer announcer;
  private final PacketCounters counters;

  private AddressControl(
      InterfaceAddresses netlink, NeighbourAnnouncer announcer, PacketCounters counters) {
    this.netlink = netlink;
    this.announcer = announcer;
    this.counters = counters;
  }

  /** Opens rtnetlink and the announcing sockets. */
  static AddressControl open(PacketCounters counters) throws IOException {
    InterfaceAddresses netlink = InterfaceAddresses.open();
    return new AddressControl(netlink, NeighbourAnnouncer.open(), counters);
  }

  void add(RunningInstance in, VirtualAddress a) {
    try {
      netlink.add(a, ifindex(in, a));
    } catch (IOException e) {
      counters.count(DropKind.ADDRESS);
      log.warn("({}) {}", in.cfg.name(), e.getMessage());
    }
  }

  void remove(RunningInstance in, VirtualAddress a) {
    try {
      netlink.remove(a, ifindex(in, a));
    } catch (IOException e) {
      counters.count(DropKind.ADDRESS);
      log.warn("({}) {}", in.cfg.name(), e.getMessage());
    }
  }

  /** Announces every address of the instance {@code times} times. */
  void announce(RunningInstance in, int times) {
    for (int n = 0; n < times; n++) {
      for (VirtualAddress a : in.cfg.allAddresses()) {
        try {
          Link l =
              a.device().isEmpty()
                  ? in.link
                  : Link.read(a.device().get(), List.of()).orElse(in.link);
          announcer.announce(l, a.address());
        } catch (IOException e) {
          counters.count(DropKind.ANNOUNCE);
          log.debug("({}) {}", in.cfg.name(), e.getMessage());
        }
      }
    }
  }

  /** A master whose addresses changed: the ones that went are removed, new ones added. */
  void move(RunningInstance old, RunningInstance in) {
    Set<VirtualAddress> before = new HashSet<>(old.cfg.allAddresses());
    Set<VirtualAddress> after = new HashSet<>(in.cfg.allAddresses());
    for (VirtualAddress a : old.cfg.allAddresses()) {
      if (!after.contains(a)) {
        remove(old, a);
      }
    }
    boolean addedAny = false;
    for (VirtualAddress a : in.cfg.allAddresses()) {
      if (!before.contains(a)) {
        add(in, a);
        addedAny = true;
      }
    }
    if (addedAny) {
      announce(in, in.cfg.garpMasterRepeat());
    }
  }

  private static int ifindex(RunningInstance in, VirtualAddress a) throws IOException {
    String dev = a.deviceOr(in.cfg.interfaceName());
    if (dev.equals(in.link.name())) {
      return in.link.index();
    }
    return Link.read(dev, List.of())
        .map(Link::index)
        .orElseThrow(() -> new IOException("interface " + dev + " does not exist"));
  }

  @Override
  public void close() {
    netlink.close();
    announcer.close();
  }
}
