package io.fairway.plan;

import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.SyncDaemon;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one load of the configuration decided, service by service.
 *
 * @param services the virtual servers in file order, names unique
 * @param timeouts the global idle timeouts ({@code lvs_timeouts})
 * @param sync the kernel's connection sync daemons ({@code lvs_sync_daemon}), if asked for
 */
public record Plan(List<ServicePlan> services, Timeouts timeouts, Optional<Sync> sync) {

  /** The plan of an empty configuration. */
  public static final Plan EMPTY = new Plan(List.of(), Timeouts.NONE);

  /** A plan without connection sync. */
  public Plan(List<ServicePlan> services, Timeouts timeouts) {
    this(services, timeouts, Optional.empty());
  }

  /**
   * {@code lvs_sync_daemon} (or {@code lvs_sync_daemon_interface}): the kernel's IPVS connection
   * sync daemons, with every value decided. A zero (or empty group) is the kernel's own default,
   * which the request leaves out, as keepalived does.
   *
   * @param where {@code FILE:LINE} of the keyword
   * @param interfaceName the multicast interface
   * @param syncId 0..255
   * @param maxLen the UDP payload size; 0: the kernel's
   * @param port the UDP port; 0: the kernel's 8848
   * @param ttl the multicast TTL; 0: the kernel's 1
   * @param group the multicast group; empty: the kernel's 224.0.0.81
   * @param instance the VRRP instance whose state the daemons follow (master while it is master,
   *     backup otherwise); empty: a master and a backup daemon run the whole time
   */
  public record Sync(
      String where,
      String interfaceName,
      int syncId,
      int maxLen,
      int port,
      int ttl,
      Optional<java.net.InetAddress> group,
      Optional<String> instance) {
    public Sync {
      Objects.requireNonNull(where);
      Objects.requireNonNull(group);
      Objects.requireNonNull(instance);
      daemon(SyncDaemon.Role.MASTER, interfaceName, syncId, maxLen, port, ttl, group); // validates
    }

    /**
     * Whether the kernel's daemons would be started with the same settings (interface, id, maxlen,
     * port, TTL, group): what a reload compares, as keepalived's {@code ipvs_syncd_changed} does.
     * Neither the line it is on nor the instance it follows counts: a daemon that follows another
     * instance is not restarted, it only takes that instance's role.
     */
    public boolean sameDaemons(Sync other) {
      return daemon(SyncDaemon.Role.MASTER).equals(other.daemon(SyncDaemon.Role.MASTER));
    }

    /** The same daemons following the same instance ({@link #where} aside). */
    public boolean sameAs(Sync other) {
      return sameDaemons(other) && instance.equals(other.instance);
    }

    /** The kernel request for a daemon of {@code role}. */
    public SyncDaemon daemon(SyncDaemon.Role role) {
      return daemon(role, interfaceName, syncId, maxLen, port, ttl, group);
    }

    private static SyncDaemon daemon(
        SyncDaemon.Role role,
        String ifname,
        int id,
        int maxLen,
        int port,
        int ttl,
        Optional<java.net.InetAddress> group) {
      return new SyncDaemon(role, ifname, id, maxLen, port, ttl, group.orElse(null));
    }
  }

  /**
   * {@code lvs_timeouts}: the kernel's; the userspace data plane reads {@code tcp} as its idle
   * timeout for established connections and {@code udp} as a UDP flow's lifetime. Zero: unset.
   */
  public record Timeouts(Duration tcp, Duration tcpFin, Duration udp) {
    public static final Timeouts NONE = new Timeouts(Duration.ZERO, Duration.ZERO, Duration.ZERO);

    public Timeouts {
      Objects.requireNonNull(tcp);
      Objects.requireNonNull(tcpFin);
      Objects.requireNonNull(udp);
    }
  }

  public Plan {
    services = List.copyOf(services);
    Objects.requireNonNull(timeouts, "timeouts");
    Objects.requireNonNull(sync, "sync");
  }

  /** The service plan with this name. */
  public Optional<ServicePlan> service(String name) {
    return services.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** The service plan that owns a table service. */
  public Optional<ServicePlan> owner(ServiceKey key) {
    for (ServicePlan s : services) {
      for (Service t : s.services()) {
        if (t.key().equals(key)) {
          return Optional.of(s);
        }
      }
    }
    return Optional.empty();
  }

  /** Every table service with the plan that owns it. */
  public Map<ServiceKey, ServicePlan> byKey() {
    Map<ServiceKey, ServicePlan> m = new LinkedHashMap<>();
    for (ServicePlan s : services) {
      for (Service t : s.services()) {
        m.put(t.key(), s);
      }
    }
    return m;
  }

  /**
   * What differs from {@code before}, one line per service and field (reload logs it): services
   * added and removed, and for kept ones which fields changed.
   */
  public List<String> changesSince(Plan before) {
    List<String> out = new ArrayList<>();
    for (ServicePlan old : before.services()) {
      if (service(old.name()).isEmpty()) {
        out.add(old.name() + ": removed");
      }
    }
    for (ServicePlan now : services) {
      Optional<ServicePlan> was = before.service(now.name());
      if (was.isEmpty()) {
        out.add(now.name() + ": added");
        continue;
      }
      ServicePlan o = was.get();
      diff(out, now.name(), "lb_kind", o.lbKind(), now.lbKind());
      diff(out, now.name(), "services", o.services(), now.services());
      diff(out, now.name(), "selection", o.selection().describe(), now.selection().describe());
      diff(out, now.name(), "key", o.key(), now.key());
      // Where a server is written is not part of what it is: a comment added above it moves every
      // line, and the reload's log would name every service as changed.
      diff(out, now.name(), "members", unplaced(o.members()), unplaced(now.members()));
      diff(
          out,
          now.name(),
          "sorry_server",
          o.sorry().map(Plan::unplaced),
          now.sorry().map(Plan::unplaced));
      diff(
          out,
          now.name(),
          "quorum",
          o.quorum() + "/" + o.hysteresis(),
          now.quorum() + "/" + now.hysteresis());
      diff(out, now.name(), "access_log", o.accessLogs(), now.accessLogs());
    }
    if (!before.timeouts().equals(timeouts)) {
      out.add("lvs_timeouts: " + before.timeouts() + " -> " + timeouts);
    }
    syncChange(before.sync(), sync).ifPresent(out::add);
    return out;
  }

  /** The reload's line for lvs_sync_daemon, if it changed (a moved line is not a change). */
  private static Optional<String> syncChange(Optional<Sync> before, Optional<Sync> after) {
    if (before.isEmpty() && after.isEmpty()) {
      return Optional.empty();
    }
    if (before.isEmpty()) {
      return Optional.of("lvs_sync_daemon added");
    }
    if (after.isEmpty()) {
      return Optional.of("lvs_sync_daemon removed");
    }
    if (!before.get().sameDaemons(after.get())) {
      return Optional.of("lvs_sync_daemon changed (daemons restarted)");
    }
    if (!before.get().instance().equals(after.get().instance())) {
      return Optional.of(
          "lvs_sync_daemon follows "
              + after.get().instance().orElse("no VRRP instance (master and backup)"));
    }
    return Optional.empty();
  }

  private static List<MemberPlan> unplaced(List<MemberPlan> members) {
    return members.stream().map(m -> m.toBuilder().where("").build()).toList();
  }

  private static SorryPlan unplaced(SorryPlan s) {
    return new SorryPlan("", s.dest(), s.inhibit(), s.overflow());
  }

  private static void diff(List<String> out, String name, String field, Object a, Object b) {
    if (!Objects.equals(a, b)) {
      out.add(name + ": " + field + " changed");
    }
  }
}
