package io.fairway.daemon;

import io.fairway.apply.RealServer;
import io.fairway.apply.TrackedFile;
import io.fairway.apply.VirtualServer;
import io.fairway.config.model.Config;
import io.fairway.config.model.FileCheck;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.GroupEntry;
import io.fairway.config.model.SorryServer;
import io.fairway.config.model.TrackFile;
import io.fairway.config.model.VirtualServerGroup;
import io.fairway.config.model.VirtualServerId;
import io.fairway.table.AddressFamily;
import io.fairway.table.Dest;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceFlag;
import io.fairway.table.ServiceKey;
import io.fairway.table.Tunnel;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns the configuration model into the applier's bindings: each {@code virtual_server} into its
 * kernel services (one, or one per member of its {@code virtual_server_group}) and its real and
 * sorry servers into destinations.
 */
final class TableBinding {
  private TableBinding() {}

  /** A configuration the chosen table cannot run; the message names the virtual server. */
  static final class BindingException extends Exception {
    private static final long serialVersionUID = 1L;

    BindingException(String message) {
      super(message);
    }
  }

  /**
   * @param userspace whether the table is Fairway's proxy, which also takes the Varnish director
   *     names and {@code lb_kind PROXY|HTTP}; the kernel takes neither
   */
  static Map<String, VirtualServer> bind(Config config, boolean userspace) throws BindingException {
    Map<String, VirtualServer> out = new LinkedHashMap<>();
    for (io.fairway.config.model.VirtualServer vs : config.virtualServers()) {
      String where = vs.location() + ": virtual_server " + vs.name();
      if (!userspace && !vs.forwarding().method().isKernel()) {
        throw new BindingException(where + ": lb_kind " + vs.forwarding().method()
            + " is Fairway's userspace data plane; run with --userspace");
      }
      if (!userspace && !vs.scheduler().isKernel()) {
        throw new BindingException(where + ": lb_algo " + vs.scheduler().keyword()
            + " is a Varnish director, which the kernel does not have; run with --userspace");
      }
      List<Service> services = new ArrayList<>();
      for (ServiceKey key : keys(config, vs.id())) {
        services.add(service(vs, key));
      }
      if (services.isEmpty()) {
        throw new BindingException(where + ": its virtual_server_group has no members");
      }
      List<RealServer> servers = new ArrayList<>();
      List<TrackedFile> tracked = new ArrayList<>();
      for (io.fairway.config.model.RealServer rs : vs.realServers()) {
        Dest dest = dest(rs.id().address(), rs.id().port(), rs.forwarding(), rs.intWeight(),
            clamp(rs.upperThreshold()), clamp(rs.lowerThreshold()));
        // shard ramps by itself (Varnish's rampup, which slow_start sets: ListenerSpecs).
        java.time.Duration slow = vs.scheduler() == io.fairway.config.model.Scheduler.SHARD
            ? java.time.Duration.ZERO : rs.slowStart();
        servers.add(new RealServer(rs.name(), dest, rs.inhibitOnFailure(), rs.intWeight(), slow));
        for (io.fairway.config.model.Checker c : rs.checkers()) {
          if (c instanceof FileCheck f) {
            Optional<TrackFile> tf = config.trackFile(f.trackFile());
            tracked.add(new TrackedFile(rs.name(), tf.map(TrackFile::file).orElse(f.trackFile()), f.weight(),
                f.reverse()));
          }
        }
      }
      Dest sorry = null;
      boolean sorryInhibit = false;
      if (vs.sorryServer().isPresent()) {
        SorryServer s = vs.sorryServer().get();
        // keepalived fixes the sorry server's weight at 1 (check_data.c:848-875).
        sorry = dest(s.id().address(), s.id().port(), s.forwarding(), 1, 0, 0);
        sorryInhibit = s.inhibit();
      }
      if (out.put(vs.name(), new VirtualServer(vs.name(), services, VirtualServer.byName(servers), sorry,
          sorryInhibit, tracked, sorry != null && vs.overflowToSorryServer())) != null) {
        throw new BindingException(where + ": a second virtual server has the same name");
      }
    }
    return out;
  }

  private static List<ServiceKey> keys(Config config, VirtualServerId id) throws BindingException {
    if (id instanceof VirtualServerId.Address a) {
      return List.of(ServiceKey.of(protocol(a.protocol()), a.address(), a.port()));
    }
    if (id instanceof VirtualServerId.Fwmark f) {
      return List.of(ServiceKey.fwmark(family(f.family()), (int) f.fwmark()));
    }
    VirtualServerId.Group g = (VirtualServerId.Group) id;
    VirtualServerGroup group = config.group(g.name())
        .orElseThrow(() -> new BindingException("virtual_server group " + g.name() + ": no such group"));
    List<ServiceKey> keys = new ArrayList<>();
    for (GroupEntry e : group.entries()) {
      if (e instanceof GroupEntry.AddressRange r) {
        for (InetAddress addr : r.addresses()) {
          keys.add(ServiceKey.of(protocol(g.protocol()), addr, r.port()));
        }
      } else if (e instanceof GroupEntry.Fwmark f) {
        keys.add(ServiceKey.fwmark(family(f.family()), (int) f.fwmark()));
      }
    }
    return keys;
  }

  private static Service service(io.fairway.config.model.VirtualServer vs, ServiceKey key) {
    int full = key.family() == AddressFamily.INET6 ? 128 : 32;
    Set<ServiceFlag> flags = new java.util.HashSet<>(ServiceFlag.fromBits(vs.flagBits()));
    int timeout = (int) vs.persistenceTimeout().toSeconds();
    if (timeout > 0) {
      flags.add(ServiceFlag.PERSISTENT);
    }
    int netmask = timeout > 0 ? vs.persistenceGranularity().orElse(full) : full;
    return new Service(key, vs.scheduler().keyword(), flags, timeout, netmask,
        vs.persistenceEngine().orElse(null));
  }

  static Dest dest(InetAddress address, int port, Forwarding f, int weight, int upper, int lower) {
    ForwardingMethod m = switch (f.method()) {
      case DR -> ForwardingMethod.DROUTE;
      case TUN -> ForwardingMethod.TUNNEL;
      // The userspace proxy connects to the real server's own address and port, as NAT does.
      case NAT, PROXY, HTTP -> ForwardingMethod.MASQ;
    };
    Tunnel tunnel = null;
    if (m == ForwardingMethod.TUNNEL) {
      Tunnel.Type type = switch (f.tunnelType()) {
        case GUE -> Tunnel.Type.GUE;
        case GRE -> Tunnel.Type.GRE;
        case IPIP, NONE -> Tunnel.Type.IPIP;
      };
      Tunnel.Checksum sum = switch (f.checksum()) {
        case CSUM -> Tunnel.Checksum.CSUM;
        case REMCSUM -> Tunnel.Checksum.REMCSUM;
        case NOCSUM, NONE -> Tunnel.Checksum.NOCSUM;
      };
      tunnel = new Tunnel(type, f.tunnelPort(), sum);
    }
    return new Dest(address, port, m, weight, upper, lower, tunnel);
  }

  private static int clamp(long v) {
    return (int) Math.max(0, Math.min(Integer.MAX_VALUE, v));
  }

  private static Protocol protocol(io.fairway.config.model.Protocol p) {
    return Protocol.valueOf(p.name());
  }

  private static AddressFamily family(io.fairway.config.model.AddressFamily f) {
    return f == io.fairway.config.model.AddressFamily.INET6 ? AddressFamily.INET6 : AddressFamily.INET;
  }
}
