package io.fairway.plan;

import io.fairway.config.model.AccessLogs;
import io.fairway.config.model.KeySource;
import io.fairway.config.model.LbKind;
import io.fairway.config.model.ProxySettings;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One {@code virtual_server} as every consumer reads it.
 *
 * @param where {@code FILE:LINE} of the block
 * @param name its name (verdicts, {@code pick --vs}, status)
 * @param lbKind {@code lb_kind}: NAT/DR/TUN for the kernel; PROXY (L4) or HTTP for the userspace
 *     data plane
 * @param services the table services: one, or one per member of its {@code virtual_server_group};
 *     scheduler name, flags and persistence as the table takes them
 * @param selection the scheduler or director, parameters typed
 * @param key where a hashing selection takes its key ({@code by ...}); {@code CLIENT_IP} for kernel
 *     schedulers and L4 services
 * @param members the real servers in file order
 * @param sorry the sorry server, if any
 * @param quorum minimum alive weight (effective)
 * @param hysteresis quorum hysteresis (effective)
 * @param proxy the userspace data plane's timeouts and {@code http_forwarded}
 * @param accessLogs its {@code access_log} files (the userspace data plane writes them)
 */
public record ServicePlan(
    String where,
    String name,
    LbKind lbKind,
    List<Service> services,
    Selection selection,
    KeySource key,
    List<MemberPlan> members,
    Optional<SorryPlan> sorry,
    long quorum,
    long hysteresis,
    ProxySettings proxy,
    AccessLogs accessLogs) {
  public ServicePlan {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(lbKind, "lbKind");
    services = List.copyOf(services);
    Objects.requireNonNull(selection, "selection");
    Objects.requireNonNull(key, "key");
    members = List.copyOf(members);
    Objects.requireNonNull(sorry, "sorry");
    proxy = proxy == null ? ProxySettings.DEFAULTS : proxy;
    accessLogs = accessLogs == null ? AccessLogs.NONE : accessLogs;
  }

  /** Without access logs. */
  public ServicePlan(
      String where,
      String name,
      LbKind lbKind,
      List<Service> services,
      Selection selection,
      KeySource key,
      List<MemberPlan> members,
      Optional<SorryPlan> sorry,
      long quorum,
      long hysteresis,
      ProxySettings proxy) {
    this(
        where,
        name,
        lbKind,
        services,
        selection,
        key,
        members,
        sorry,
        quorum,
        hysteresis,
        proxy,
        AccessLogs.NONE);
  }

  /** Whether the userspace data plane serves this as an HTTP reverse proxy. */
  public boolean http() {
    return lbKind == LbKind.HTTP;
  }

  /** The member whose destination in {@code service} is {@code dest}, if any. */
  public Optional<MemberPlan> member(ServiceKey service, DestKey dest) {
    for (MemberPlan m : members) {
      if (m.keyIn(service).equals(dest)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  /** The member with this name, if any. */
  public Optional<MemberPlan> member(String memberName) {
    return members.stream().filter(m -> m.name().equals(memberName)).findFirst();
  }

  /** The table service with this key, if it is one of this plan's. */
  public Optional<Service> service(ServiceKey k) {
    return services.stream().filter(s -> s.key().equals(k)).findFirst();
  }
}
