package io.fairway.plan;

import io.fairway.config.model.Config;
import io.fairway.config.model.DirectorGroup;
import io.fairway.config.model.DirectorLayout;
import io.fairway.config.model.DirectorSpec;
import io.fairway.config.model.Forwarding;
import io.fairway.config.model.GlobalDefs;
import io.fairway.config.model.GroupEntry;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.RealServer;
import io.fairway.config.model.SchedulerFlag;
import io.fairway.config.model.SorryServer;
import io.fairway.config.model.VirtualServer;
import io.fairway.config.model.VirtualServerGroup;
import io.fairway.config.model.VirtualServerId;
import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.sched.Schedulers;
import io.fairway.director.varnish.ShardBy;
import io.fairway.director.varnish.ShardHealthy;
import io.fairway.table.AddressFamily;
import io.fairway.table.Dest;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceFlag;
import io.fairway.table.ServiceKey;
import io.fairway.table.Tunnel;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Builds the {@link Plan} of a parsed configuration. Everything a data plane would refuse at run
 * time is refused here, with the file and line, so {@code check-config} and {@code run} agree: each
 * Varnish director is built once with its members, each kernel scheduler once with its flags.
 */
public final class PlanBuilder {
  private PlanBuilder() {}

  /**
   * The plan of a configuration.
   *
   * @throws PlanException every problem found, one {@code FILE:LINE: message} each
   */
  public static Plan build(Config config) throws PlanException {
    List<String> errors = new ArrayList<>();
    List<ServicePlan> services = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (VirtualServer vs : config.virtualServers()) {
      String where = vs.location() + ": virtual_server " + vs.name();
      if (!names.add(vs.name())) {
        errors.add(where + ": a second virtual server has the same name");
        continue;
      }
      try {
        services.add(service(config, vs, where, errors));
      } catch (IllegalArgumentException e) {
        errors.add(where + ": " + e.getMessage());
      }
    }
    Optional<Plan.Sync> sync = sync(config, errors);
    if (!errors.isEmpty()) {
      throw new PlanException(errors);
    }
    return new Plan(services, timeouts(config.globalDefs()), sync);
  }

  /**
   * The {@code lvs_sync_daemon} part of the plan alone: what a reload of the VRRP side needs
   * without building every virtual server again.
   *
   * @throws PlanException a value the kernel's request cannot carry, one {@code FILE:LINE} line
   */
  public static Optional<Plan.Sync> sync(Config config) throws PlanException {
    List<String> errors = new ArrayList<>();
    Optional<Plan.Sync> sync = sync(config, errors);
    if (!errors.isEmpty()) {
      throw new PlanException(errors);
    }
    return sync;
  }

  private static Optional<Plan.Sync> sync(Config config, List<String> errors) {
    return config
        .vrrp()
        .syncDaemon()
        .flatMap(
            d -> {
              try {
                return Optional.of(
                    new Plan.Sync(
                        d.location().toString(),
                        d.interfaceName(),
                        d.syncId(),
                        d.maxLen().orElse(0),
                        d.port().orElse(0),
                        d.ttl().orElse(0),
                        d.group(),
                        d.instance()));
              } catch (IllegalArgumentException e) {
                errors.add(d.location() + ": lvs_sync_daemon: " + e.getMessage());
                return Optional.empty();
              }
            });
  }

  private static Plan.Timeouts timeouts(GlobalDefs g) {
    return new Plan.Timeouts(
        g.lvsTimeoutTcp().orElse(Duration.ZERO),
        g.lvsTimeoutTcpFin().orElse(Duration.ZERO),
        g.lvsTimeoutUdp().orElse(Duration.ZERO));
  }

  private static ServicePlan service(
      Config config, VirtualServer vs, String where, List<String> errors) {
    List<Service> services = new ArrayList<>();
    for (ServiceKey key : keys(config, vs.id(), where, errors)) {
      services.add(tableService(vs, key));
    }
    if (services.isEmpty()) {
      errors.add(where + ": its virtual_server_group has no members");
    }
    boolean http = vs.forwarding().method() == io.fairway.config.model.LbKind.HTTP;
    if (http && services.stream().anyMatch(s -> s.key().protocol() != Protocol.TCP)) {
      errors.add(where + ": lb_kind HTTP needs protocol TCP");
    }
    Selection selection = selection(vs);
    KeySource key = key(vs);
    List<MemberPlan> members = new ArrayList<>();
    for (RealServer rs : vs.realServers()) {
      members.add(member(vs, rs));
    }
    Optional<SorryPlan> sorry = vs.sorry().server().map(s -> sorry(s, vs.sorry().overflow()));
    validate(vs, where, selection, members, errors);
    return new ServicePlan(
        vs.location().toString(),
        vs.name(),
        vs.forwarding().method(),
        services,
        selection,
        key,
        members,
        sorry,
        vs.quorum().quorum(),
        vs.quorum().hysteresis(),
        vs.proxy(),
        vs.accessLogs());
  }

  /** Builds the director or scheduler once, so what it refuses is refused with a location. */
  private static void validate(
      VirtualServer vs,
      String where,
      Selection selection,
      List<MemberPlan> members,
      List<String> errors) {
    if (selection instanceof Selection.Kernel k) {
      try {
        Schedulers.create(
            k.algorithm(),
            k.flags(),
            new Schedulers.Options(Schedulers.Options.KERNEL.mhTableSize(), k.hashBalanceFactor()));
      } catch (IllegalArgumentException e) {
        errors.add(where + ": lb_algo " + k.algorithm() + ": " + e.getMessage());
      }
      return;
    }
    if (selection instanceof Selection.Layered l) {
      validateLayers(vs, where, l, members, errors);
      return;
    }
    AbstractDirector<?> d;
    try {
      d = DirectorFactory.create(vs.name(), (Selection.Varnish) selection, null);
    } catch (IllegalArgumentException e) {
      errors.add(where + ": " + selection.algorithm() + ": " + e.getMessage());
      return;
    }
    for (MemberPlan m : members) {
      Backend b = m::name;
      try {
        d.add(DirectorFactory.member(m, b, true));
      } catch (IllegalArgumentException e) {
        errors.add(m.where() + ": real_server " + m.name() + ": " + e.getMessage());
      }
    }
  }

  /** Builds the layers with every member up, so what the library refuses names its director. */
  private static void validateLayers(
      VirtualServer vs,
      String where,
      Selection.Layered l,
      List<MemberPlan> members,
      List<String> errors) {
    DirectorTree tree;
    try {
      tree = new DirectorTree(vs.name(), l, null);
    } catch (IllegalArgumentException e) {
      errors.add(where + ": " + e.getMessage());
      return;
    }
    java.util.Map<String, MemberPlan> byName = new java.util.HashMap<>();
    for (MemberPlan m : members) {
      byName.put(m.name(), m);
    }
    try {
      tree.update(
          (d, name) -> {
            MemberPlan m = byName.get(name);
            return m == null ? null : DirectorFactory.member(m, m::name, true);
          });
    } catch (IllegalArgumentException e) {
      errors.add(where + ": " + e.getMessage());
    }
  }

  private static Selection selection(VirtualServer vs) {
    Selection own =
        selection(
            vs,
            vs.scheduling().scheduler(),
            vs.scheduling().director(),
            vs.scheduling().hashBalanceFactor());
    DirectorLayout layout = vs.scheduling().layout();
    if (!layout.layered()) {
      if (own instanceof Selection.Shard sh && layout.altHeader().isPresent()) {
        return new Selection.Shard(
            sh.replicas(),
            sh.by(),
            sh.healthy(),
            sh.warmup(),
            sh.rampup(),
            sh.hashBalanceFactor(),
            sh.alt(),
            sh.rampupOn(),
            sh.param(),
            layout.altHeader());
      }
      return own;
    }
    // Leaves first: each director after every director it contains (the config refused cycles).
    java.util.Map<String, DirectorGroup> byName = new java.util.LinkedHashMap<>();
    for (DirectorGroup g : layout.groups()) {
      byName.put(g.name(), g);
    }
    List<Selection.Layered.Group> ordered = new ArrayList<>();
    Set<String> placed = new HashSet<>();
    for (DirectorGroup g : layout.groups()) {
      place(g, byName, placed, ordered, vs);
    }
    return new Selection.Layered(
        (Selection.Varnish) own, refs(layout.members(), byName), ordered, layout.altHeader());
  }

  private static void place(
      DirectorGroup g,
      java.util.Map<String, DirectorGroup> byName,
      Set<String> placed,
      List<Selection.Layered.Group> out,
      VirtualServer vs) {
    if (!placed.add(g.name())) {
      return;
    }
    for (String m : g.members()) {
      DirectorGroup inner = byName.get(m);
      if (inner != null) {
        place(inner, byName, placed, out, vs);
      }
    }
    // A layer's shard ramps by the virtual_server's slow_start too; bounded load is top-level.
    Selection.Varnish sel = (Selection.Varnish) selection(vs, g.scheduler(), g.director(), 0);
    out.add(new Selection.Layered.Group(g.name(), sel, refs(g.members(), byName)));
  }

  private static List<Selection.Layered.Ref> refs(
      List<String> names, java.util.Map<String, DirectorGroup> groups) {
    List<Selection.Layered.Ref> out = new ArrayList<>();
    for (String n : names) {
      out.add(
          groups.containsKey(n)
              ? new Selection.Layered.Nested(n)
              : new Selection.Layered.Server(n));
    }
    return out;
  }

  private static Selection selection(
      VirtualServer vs,
      io.fairway.config.model.Scheduler scheduler,
      DirectorSpec spec,
      int hashBalanceFactor) {
    return switch (scheduler) {
      case ROUND_ROBIN -> new Selection.RoundRobin();
      case RANDOM -> new Selection.Random();
      case FALLBACK ->
          new Selection.Fallback(spec instanceof DirectorSpec.Fallback f && f.sticky());
      case HASH -> new Selection.Hash();
      case SHARD -> shard(spec, hashBalanceFactor, slowStart(vs));
      default -> {
        List<String> flags = new ArrayList<>();
        for (SchedulerFlag f : vs.scheduling().flags()) {
          if (f != SchedulerFlag.OPS) {
            flags.add(f.keyword());
          }
        }
        flags.sort(null);
        yield new Selection.Kernel(
            vs.scheduling().scheduler().keyword(), flags, vs.scheduling().hashBalanceFactor());
      }
    };
  }

  /**
   * slow_start on a shard service is Varnish's rampup, unchanged: {@code shard { rampup }} if
   * given, else the longest slow_start of the service (the director has one rampup).
   */
  private static Selection.Shard shard(
      DirectorSpec spec, int hashBalanceFactor, java.time.Duration slowStart) {
    if (!(spec instanceof DirectorSpec.Shard s)) {
      Selection.Shard d = (Selection.Shard) Selection.defaults("shard");
      return new Selection.Shard(
          d.replicas(),
          d.by(),
          d.healthy(),
          d.warmup(),
          d.rampup().isZero() ? slowStart : d.rampup(),
          hashBalanceFactor);
    }
    return new Selection.Shard(
        s.replicas(),
        by(s.by()),
        ShardHealthy.valueOf(s.healthy().name()),
        s.warmup(),
        s.rampup().isZero() ? slowStart : s.rampup(),
        hashBalanceFactor,
        s.alt(),
        s.rampupOn(),
        s.associate(),
        java.util.Optional.empty());
  }

  private static java.time.Duration slowStart(VirtualServer vs) {
    java.time.Duration d = vs.slowStart();
    for (RealServer rs : vs.realServers()) {
      if (rs.slowStart().compareTo(d) > 0) {
        d = rs.slowStart();
      }
    }
    return d;
  }

  /** Varnish's key modes map directly; Fairway's extra sources hash their string like KEY. */
  private static ShardBy by(KeySource k) {
    return switch (k.kind()) {
      case HASH -> ShardBy.HASH;
      case URL -> ShardBy.URL;
      case BLOB -> ShardBy.BLOB;
      default -> ShardBy.KEY;
    };
  }

  /**
   * The key the data plane derives for each request: the hashing director's {@code by}; in a
   * layered service, the first hashing director's, top first (the config made them agree).
   */
  private static KeySource key(VirtualServer vs) {
    List<DirectorSpec> specs = new ArrayList<>();
    specs.add(vs.scheduling().director());
    for (DirectorGroup g : vs.scheduling().layout().groups()) {
      specs.add(g.director());
    }
    for (DirectorSpec d : specs) {
      if (d instanceof DirectorSpec.Hash h) {
        return h.by();
      }
      if (d instanceof DirectorSpec.Shard s) {
        return s.by();
      }
    }
    return KeySource.of(KeySource.Kind.CLIENT_IP);
  }

  private static MemberPlan member(VirtualServer vs, RealServer rs) {
    int tableWeight = rs.intWeight();
    Dest dest =
        dest(
            rs.id().address(),
            rs.id().port(),
            rs.forwarding(),
            tableWeight,
            clamp(rs.thresholds().upper()),
            clamp(rs.thresholds().lower()));
    // shard ramps in the director (Varnish's rampup, which slow_start sets): no weight steps.
    boolean shardRamps =
        vs.scheduling().scheduler() == io.fairway.config.model.Scheduler.SHARD
            || vs.scheduling().layout().groups().stream()
                .anyMatch(g -> g.scheduler() == io.fairway.config.model.Scheduler.SHARD);
    java.time.Duration slow = shardRamps ? java.time.Duration.ZERO : rs.slowStart();
    return new MemberPlan(
        rs.location().toString(),
        rs.name(),
        rs.ident(),
        rs.weight(),
        dest,
        rs.checkPort(),
        rs.inhibitOnFailure(),
        slow,
        rs.backend().maxConns(),
        rs.backend().proxyProtocol(),
        rs.backend().tls(),
        rs.tier(),
        rs.backend().http2());
  }

  private static SorryPlan sorry(SorryServer s, boolean overflow) {
    // keepalived fixes the sorry server's weight at 1 (check_data.c:848-875).
    return new SorryPlan(
        s.location().toString(),
        dest(s.id().address(), s.id().port(), s.forwarding(), 1, 0, 0),
        s.inhibit(),
        overflow);
  }

  private static List<ServiceKey> keys(
      Config config, VirtualServerId id, String where, List<String> errors) {
    if (id instanceof VirtualServerId.Address a) {
      return List.of(ServiceKey.of(a.protocol(), a.address(), a.port()));
    }
    if (id instanceof VirtualServerId.Fwmark f) {
      return List.of(ServiceKey.fwmark(f.family(), (int) f.fwmark()));
    }
    VirtualServerId.Group g = (VirtualServerId.Group) id;
    Optional<VirtualServerGroup> group = config.group(g.name());
    if (group.isEmpty()) {
      errors.add(where + ": virtual_server group " + g.name() + ": no such group");
      return List.of();
    }
    List<ServiceKey> keys = new ArrayList<>();
    for (GroupEntry e : group.get().entries()) {
      if (e instanceof GroupEntry.AddressRange r) {
        for (InetAddress addr : r.addresses()) {
          keys.add(ServiceKey.of(g.protocol(), addr, r.port()));
        }
      } else if (e instanceof GroupEntry.Fwmark f) {
        keys.add(ServiceKey.fwmark(f.family(), (int) f.fwmark()));
      }
    }
    return keys;
  }

  private static Service tableService(VirtualServer vs, ServiceKey key) {
    int full = key.family() == AddressFamily.INET6 ? 128 : 32;
    Set<ServiceFlag> flags = new HashSet<>(ServiceFlag.fromBits(vs.scheduling().flagBits()));
    int timeout = (int) vs.persistence().timeout().toSeconds();
    if (timeout > 0) {
      flags.add(ServiceFlag.PERSISTENT);
    }
    int netmask = timeout > 0 ? vs.persistence().granularity().orElse(full) : full;
    return new Service(
        key,
        vs.scheduling().scheduler().keyword(),
        flags,
        timeout,
        netmask,
        vs.persistence().engine().orElse(null));
  }

  /** A destination as the table takes it. */
  public static Dest dest(
      InetAddress address, int port, Forwarding f, int weight, int upper, int lower) {
    ForwardingMethod m =
        switch (f.method()) {
          case DR -> ForwardingMethod.DROUTE;
          case TUN -> ForwardingMethod.TUNNEL;
          // The userspace proxy connects to the real server's own address and port, as NAT does.
          case NAT, PROXY, HTTP -> ForwardingMethod.MASQ;
        };
    Tunnel tunnel = null;
    if (m == ForwardingMethod.TUNNEL) {
      Tunnel.Type type =
          switch (f.tunnelType()) {
            case GUE -> Tunnel.Type.GUE;
            case GRE -> Tunnel.Type.GRE;
            case IPIP, NONE -> Tunnel.Type.IPIP;
          };
      Tunnel.Checksum sum =
          switch (f.checksum()) {
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
}
