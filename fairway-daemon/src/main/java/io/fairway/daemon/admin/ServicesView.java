package io.fairway.daemon.admin;

import io.fairway.apply.AdminApplier;
import io.fairway.apply.AdminState;
import io.fairway.apply.ServerAdmin;
import io.fairway.apply.UnknownServerException;
import io.fairway.apply.VirtualServerStatus;
import io.fairway.apply.VirtualServerStatus.RealServerStatus;
import io.fairway.daemon.CheckAttempts;
import io.fairway.daemon.Health;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.Endpoints;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The runtime API's view of the virtual servers: what the applier believes, what the checkers said
 * and why, the operators' settings, and the counters read back from the table (so they are the
 * forwarder's own, kernel or userspace).
 */
public final class ServicesView {
  private ServicesView() {}

  /** One virtual server. */
  public record VirtualServerView(
      String name,
      String address,
      List<String> services,
      String protocol,
      String scheduler,
      String quorum,
      @Nullable String sorryServer,
      String sorryServerState,
      long sorryActiveConnections,
      long sorryConnectionsTotal,
      List<RealServerView> servers,
      @Nullable QueueView queue) {
    VirtualServerView withServers(List<RealServerView> s) {
      return new VirtualServerView(
          name,
          address,
          services,
          protocol,
          scheduler,
          quorum,
          sorryServer,
          sorryServerState,
          sorryActiveConnections,
          sorryConnectionsTotal,
          s,
          queue);
    }

    VirtualServerView with(@Nullable QueueView q) {
      return new VirtualServerView(
          name,
          address,
          services,
          protocol,
          scheduler,
          quorum,
          sorryServer,
          sorryServerState,
          sorryActiveConnections,
          sorryConnectionsTotal,
          servers,
          q);
    }
  }

  /**
   * The userspace data plane's queue of a virtual server (summed over a group's services): it fills
   * only when every real server is at its {@code limit}; null on the kernel.
   *
   * @param waiting connections or requests waiting for a slot now
   * @param queued those that ever waited
   * @param timedOut those refused after waiting the connect timeout
   * @param refusedFull those refused at once, the queue being full
   */
  public record QueueView(int waiting, long queued, long timedOut, long refusedFull) {}

  /**
   * One real server. {@code slowStartWeight}: while its {@code slow_start} ramp runs, the weight it
   * is scheduled with now (on its way to {@code effectiveWeight}): on the kernel the integer weight
   * stepped into the table, in the userspace scheduler the decimal {@code weight × f} its ramp
   * gives it ({@link io.fairway.director.SlowStart}); null otherwise. {@code http}: its HTTP
   * requests, failures and retries on the userspace proxy; null elsewhere. {@code limit}: its
   * configured connection limit ({@code uthreshold}/{@code max_conns}), 0 for none. {@code
   * learnedLimit}: without {@code max_conns}, the limit the userspace proxy learned from its
   * refusals, 0 for none. {@code standby}: a backup (a higher SRV priority of {@code
   * real_server_dns}) kept out of the table while a server of a lower tier is up; its {@code state}
   * is then {@code backup}.
   */
  public record RealServerView(
      String name,
      String address,
      String state,
      String adminState,
      boolean inTable,
      int configuredWeight,
      int effectiveWeight,
      long activeConnections,
      long inactiveConnections,
      long connectionsTotal,
      long bytesIn,
      long bytesOut,
      @Nullable CheckView lastCheck,
      @Nullable Number slowStartWeight,
      @Nullable HttpTraffic http,
      int limit,
      int learnedLimit,
      boolean standby) {
    RealServerView with(HttpTraffic traffic) {
      return with(lastCheck, traffic, learnedLimit);
    }

    RealServerView with(CheckView check) {
      return with(check, http, learnedLimit);
    }

    RealServerView withLearnedLimit(int learned) {
      return with(lastCheck, http, learned);
    }

    /** The one copy: the parts that are read after the table (checks, traffic, the proxy). */
    private RealServerView with(
        @Nullable CheckView check, @Nullable HttpTraffic traffic, int learned) {
      return new RealServerView(
          name,
          address,
          state,
          adminState,
          inTable,
          configuredWeight,
          effectiveWeight,
          activeConnections,
          inactiveConnections,
          connectionsTotal,
          bytesIn,
          bytesOut,
          check,
          slowStartWeight,
          traffic,
          limit,
          learned,
          standby);
    }
  }

  /**
   * The checkers' last verdict, and the last attempt of any of them ({@code lastAttempt}: what it
   * saw, how long it took, when; null before the first or without the daemon's record of them).
   */
  public record CheckView(
      String result, String reason, String since, CheckAttempts.@Nullable LastAttempt lastAttempt) {
    public CheckView(String result, String reason, String since) {
      this(result, reason, since, null);
    }
  }

  /**
   * Every virtual server of a running daemon, the table read back once.
   *
   * @throws IllegalStateException the table cannot be read
   */
  public static List<VirtualServerView> of(io.fairway.daemon.Daemon daemon) {
    if (!daemon.ready()) {
      return List.of();
    }
    try {
      return withAttempts(
          withHttp(
              all(
                  daemon.applier().readBack(),
                  daemon.applier().status(),
                  daemon.admin(),
                  daemon.listener().health()),
              HttpTraffic.of(daemon)),
          daemon.attempts(),
          queues(daemon),
          learnedLimits(daemon));
    } catch (io.fairway.table.TableException e) {
      throw new IllegalStateException("cannot read the table: " + e.getMessage(), e);
    }
  }

  /** Virtual server name → its queue; empty unless on the userspace data plane. */
  private static Map<String, QueueView> queues(io.fairway.daemon.Daemon daemon) {
    Map<String, QueueView> out = new HashMap<>();
    if (!(daemon.applier().table() instanceof io.fairway.proxy.plane.ProxyTable proxy)) {
      return out;
    }
    Map<ServiceKey, io.fairway.proxy.table.QueueStats> stats = proxy.queueStats();
    for (io.fairway.apply.ServiceBinding vs : daemon.applier().config().values()) {
      io.fairway.proxy.table.QueueStats sum = io.fairway.proxy.table.QueueStats.NONE;
      for (Service s : vs.services()) {
        sum = sum.plus(stats.getOrDefault(s.key(), io.fairway.proxy.table.QueueStats.NONE));
      }
      out.put(
          vs.name(), new QueueView(sum.waiting(), sum.queued(), sum.timedOut(), sum.refusedFull()));
    }
    return out;
  }

  /**
   * Virtual server name → real server name → the lowest learned limit in force over its services;
   * empty unless on the userspace data plane.
   */
  private static Map<String, Map<String, Integer>> learnedLimits(io.fairway.daemon.Daemon daemon) {
    Map<String, Map<String, Integer>> out = new HashMap<>();
    for (ProxyLimitMetrics.Row r : ProxyLimitMetrics.rows(daemon)) {
      if (r.stats().learned() != 0) {
        out.computeIfAbsent(r.virtualServer(), k -> new HashMap<>())
            .put(r.realServer(), r.stats().learned());
      }
    }
    return out;
  }

  private static List<VirtualServerView> withAttempts(
      List<VirtualServerView> views,
      CheckAttempts attempts,
      Map<String, QueueView> queues,
      Map<String, Map<String, Integer>> learned) {
    List<VirtualServerView> out = new ArrayList<>(views.size());
    for (VirtualServerView v : views) {
      List<RealServerView> servers =
          v.servers().stream()
              .map(
                  r -> {
                    Integer l = learned.getOrDefault(v.name(), Map.of()).get(r.name());
                    RealServerView withLimit = l == null ? r : r.withLearnedLimit(l);
                    CheckAttempts.LastAttempt a = attempts.get(v.name(), r.name());
                    CheckView c = r.lastCheck();
                    return a == null || c == null
                        ? withLimit
                        : withLimit.with(new CheckView(c.result(), c.reason(), c.since(), a));
                  })
              .toList();
      out.add(v.withServers(servers).with(queues.get(v.name())));
    }
    return out;
  }

  private static List<VirtualServerView> withHttp(
      List<VirtualServerView> views, Map<String, Map<String, HttpTraffic>> traffic) {
    if (traffic.isEmpty()) {
      return views;
    }
    List<VirtualServerView> out = new ArrayList<>(views.size());
    for (VirtualServerView v : views) {
      Map<String, HttpTraffic> t = traffic.getOrDefault(v.name(), Map.of());
      List<RealServerView> servers =
          v.servers().stream()
              .map(r -> t.containsKey(r.name()) ? r.with(t.get(r.name())) : r)
              .toList();
      out.add(v.withServers(servers));
    }
    return out;
  }

  /** Every virtual server, in configuration order. */
  public static List<VirtualServerView> all(
      List<ServiceEntry> table,
      List<VirtualServerStatus> status,
      AdminApplier admin,
      Map<String, Map<String, Health>> health) {
    Map<ServiceKey, ServiceEntry> byKey = new HashMap<>();
    table.forEach(e -> byKey.put(e.service().key(), e));
    Map<String, io.fairway.apply.ServiceBinding> config = admin.applier().config();
    List<VirtualServerView> out = new ArrayList<>();
    for (VirtualServerStatus vs : status) {
      io.fairway.apply.ServiceBinding c = config.get(vs.name());
      if (c != null) {
        out.add(one(vs, c, byKey, admin, health.getOrDefault(vs.name(), Map.of())));
      }
    }
    return out;
  }

  private static VirtualServerView one(
      VirtualServerStatus vs,
      io.fairway.apply.ServiceBinding config,
      Map<ServiceKey, ServiceEntry> byKey,
      AdminApplier admin,
      Map<String, Health> health) {
    List<RealServerView> servers = new ArrayList<>();
    for (RealServerStatus rs : vs.servers()) {
      RealServerView v = server(vs, rs, config, byKey, admin, health.get(rs.name()));
      if (v != null) {
        servers.add(v);
      }
    }
    SorryState sorry = SorryState.of(vs, byKey, overflowing(admin, vs.name()));
    Service first = vs.services().get(0);
    String sorryAt =
        vs.sorryServer() == null
            ? null
            : Endpoints.format(vs.sorryServer().address(), vs.sorryServer().port());
    return new VirtualServerView(
        vs.name(),
        address(first.key()),
        vs.services().stream().map(s -> s.key().toString()).toList(),
        first.key().isFwmark()
            ? "fwmark"
            : Objects.requireNonNull(
                    first.key().protocol(), "a service that is not a fwmark has a protocol")
                .name()
                .toLowerCase(java.util.Locale.ROOT),
        first.scheduler(),
        vs.quorumUp() ? "up" : "down",
        sorryAt,
        sorry.state(),
        sorry.activeConnections(),
        sorry.connectionsTotal(),
        servers,
        null);
  }

  /** One real server's traffic read back, summed over the services of its virtual server. */
  private record Traffic(long active, long inactive, long conns, long in, long out) {
    static Traffic of(
        VirtualServerStatus vs, RealServerStatus rs, Map<ServiceKey, ServiceEntry> byKey) {
      long active = 0;
      long inactive = 0;
      long conns = 0;
      long in = 0;
      long outB = 0;
      for (Service s : vs.services()) {
        ServiceEntry e = byKey.get(s.key());
        if (e == null) {
          continue;
        }
        for (DestEntry d : e.dests()) {
          if (sameHost(rs.dest(), d.dest())) {
            active += d.activeConnections();
            inactive += d.inactiveConnections();
            conns += d.stats().connections();
            in += d.stats().inBytes();
            outB += d.stats().outBytes();
          }
        }
      }
      return new Traffic(active, inactive, conns, in, outB);
    }
  }

  /** One real server's view; null when a reload raced the read (the next read has it). */
  private static @Nullable RealServerView server(
      VirtualServerStatus vs,
      RealServerStatus rs,
      io.fairway.apply.ServiceBinding config,
      Map<ServiceKey, ServiceEntry> byKey,
      AdminApplier admin,
      @Nullable Health h) {
    Traffic t = Traffic.of(vs, rs, byKey);
    ServerAdmin a;
    AdminApplier.CheckerView view;
    try {
      a = admin.admin(vs.name(), rs.name());
      view = admin.checkerView(vs.name(), rs.name());
    } catch (UnknownServerException e) {
      return null;
    }
    io.fairway.apply.ServerBinding rc = config.servers().get(rs.name());
    String state =
        a.state() == AdminState.MAINT
            ? "maint"
            : !view.checkerAlive()
                ? "down"
                : a.state() == AdminState.DRAIN ? "drain" : rs.standby() ? "backup" : "up";
    CheckView check =
        h == null
            ? null
            : new CheckView(h.alive() ? "up" : "down", h.reason(), h.since().toString());
    return new RealServerView(
        rs.name(),
        Endpoints.format(rs.dest().address(), rs.dest().port()),
        state,
        a.state().wire(),
        rs.present(),
        rc == null ? rs.weight() : rc.weight(),
        view.effectiveWeight(),
        t.active(),
        t.inactive(),
        t.conns(),
        t.in(),
        t.out(),
        check,
        slowStartWeight(rs),
        null,
        rs.dest().upperThreshold(),
        0,
        rs.standby());
  }

  private static java.util.Set<ServiceKey> overflowing(AdminApplier admin, String vs) {
    try {
      return admin.applier().overflowing(vs);
    } catch (UnknownServerException e) {
      return java.util.Set.of(); // raced a reload; the next read has it
    }
  }

  private static String address(ServiceKey k) {
    return k.isFwmark()
        ? "fwmark " + k.fwmark()
        : Endpoints.format(
            Objects.requireNonNull(k.address(), "a service that is not a fwmark has an address"),
            k.port());
  }

  /** Same address, and same port unless the port is the service's (DR/TUN). */
  static boolean sameHost(Dest configured, Dest actual) {
    return configured.address().equals(actual.address())
        && (configured.port() == actual.port() || configured.forwarding() != ForwardingMethod.MASQ);
  }

  /** What {@code slow_start_weight} says: see {@link RealServerView}. */
  public static @Nullable Number slowStartWeight(VirtualServerStatus.RealServerStatus rs) {
    if (!rs.ramping()) {
      return null;
    }
    if (!rs.rampsInScheduler()) {
      return rs.rampWeight();
    }
    int units =
        io.fairway.director.SlowStart.units(
            rs.ramp().elapsed().toNanos(), rs.ramp().duration().toNanos());
    return rs.weight() * (double) units / io.fairway.director.SlowStart.STEPS;
  }
}
