package io.fairway.daemon.vrrp;

import io.fairway.config.model.base.Addresses;
import io.fairway.daemon.SyncStatus;
import io.fairway.plan.Plan;
import io.fairway.table.SyncDaemon;
import io.fairway.vrrp.state.State;
import io.fairway.vrrp.view.DropKind;
import io.fairway.vrrp.view.GroupStatus;
import io.fairway.vrrp.view.InstanceStatus;
import io.fairway.vrrp.view.VrrpSnapshot;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** {@code GET /api/v1/vrrp}'s shape: the snapshot with states in lower case, addresses as text. */
public final class VrrpJson {
  private VrrpJson() {}

  /** The whole of VRRP, and the connection sync daemons that follow it (null without). */
  public record View(
      List<Instance> instances,
      List<Group> syncGroups,
      long packetsReceived,
      Map<String, Long> errors,
      @Nullable SyncDaemons lvsSyncDaemon) {}

  /**
   * {@code lvs_sync_daemon}: the settings (0 and null: the kernel's default), whom the daemons
   * follow, the roles wanted now, what the kernel runs.
   */
  public record SyncDaemons(
      String where,
      boolean active,
      String interfaceName,
      int syncId,
      int maxLen,
      int port,
      int ttl,
      @Nullable String group,
      @Nullable String follows,
      @Nullable String instanceState,
      List<String> wants,
      List<KernelDaemon> kernel,
      @Nullable String kernelError,
      @Nullable String lastError) {}

  /** One daemon as the kernel reports it ({@code ipvsadm -L --daemon}), every field filled in. */
  public record KernelDaemon(
      String role,
      String interfaceName,
      int syncId,
      int maxLen,
      int port,
      int ttl,
      @Nullable String group) {}

  /** One instance. */
  public record Instance(
      String name,
      String interfaceName,
      int virtualRouterId,
      int version,
      String state,
      int priority,
      int basePriority,
      @Nullable String master,
      int masterPriority,
      String since,
      List<String> virtualAddresses,
      @Nullable String syncGroup,
      long advertsSent,
      long advertsReceived,
      Map<String, Long> transitions) {}

  /** One sync group. */
  public record Group(String name, String state, List<String> members) {}

  public static View of(VrrpSnapshot s) {
    return of(s, Optional.empty());
  }

  public static View of(VrrpSnapshot s, Optional<SyncStatus> sync) {
    Map<String, Long> errors = new LinkedHashMap<>();
    s.errors().forEach((k, v) -> errors.put(k.wire(), v));
    return new View(
        s.instances().stream().map(VrrpJson::of).toList(),
        s.groups().stream().map(VrrpJson::of).toList(),
        s.packetsReceived(),
        errors,
        sync.map(VrrpJson::of).orElse(null));
  }

  public static SyncDaemons of(SyncStatus s) {
    Plan.Sync p = s.plan();
    return new SyncDaemons(
        p.where(),
        s.active(),
        p.interfaceName(),
        p.syncId(),
        p.maxLen(),
        p.port(),
        p.ttl(),
        p.group().map(Addresses::format).orElse(null),
        p.instance().orElse(null),
        s.followedState().map(VrrpJson::wire).orElse(null),
        s.wants().stream().map(SyncDaemon.Role::word).toList(),
        s.kernel().stream().map(VrrpJson::of).toList(),
        s.kernelError().orElse(null),
        s.lastError().orElse(null));
  }

  static KernelDaemon of(SyncDaemon d) {
    return new KernelDaemon(
        d.role().word(),
        d.interfaceName(),
        d.syncId(),
        d.maxLen(),
        d.port(),
        d.ttl(),
        d.group() == null ? null : Addresses.format(d.group()));
  }

  public static Instance of(InstanceStatus i) {
    Map<String, Long> t = new LinkedHashMap<>();
    for (State st : List.of(State.BACKUP, State.MASTER, State.FAULT, State.STOP)) {
      t.put(wire(st), i.transitions().getOrDefault(st, 0L));
    }
    return new Instance(
        i.name(),
        i.interfaceName(),
        i.virtualRouterId(),
        i.version(),
        wire(i.state()),
        i.priority(),
        i.basePriority(),
        i.master().map(Addresses::format).orElse(null),
        i.masterPriority(),
        i.since().truncatedTo(ChronoUnit.MILLIS).toString(),
        i.virtualAddresses().stream().map(Addresses::format).toList(),
        i.syncGroup().orElse(null),
        i.advertsSent(),
        i.advertsReceived(),
        t);
  }

  static Group of(GroupStatus g) {
    return new Group(g.name(), wire(g.state()), g.members());
  }

  /** {@code master}, {@code backup}, ... */
  public static String wire(State s) {
    return s.name().toLowerCase(Locale.ROOT);
  }

  static String wire(DropKind k) {
    return k.wire();
  }
}
