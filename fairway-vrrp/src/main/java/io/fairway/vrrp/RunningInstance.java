package io.fairway.vrrp;

import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.config.model.vrrp.VrrpState;
import io.fairway.table.AddressFamily;
import io.fairway.vrrp.io.Link;
import io.fairway.vrrp.io.VrrpSocket;
import io.fairway.vrrp.packet.Advert;
import io.fairway.vrrp.state.Router;
import io.fairway.vrrp.state.State;
import io.fairway.vrrp.view.DropKind;
import io.fairway.vrrp.view.InstanceStatus;
import java.net.InetAddress;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * One vrrp_instance as the speaker runs it: its configuration, its state machine, the link and
 * socket it speaks on, its gratuitous ARP timers and its counters. Owned by the event thread; only
 * {@link #view} and the counters are read by others.
 */
final class RunningInstance {
  /** A timer that is not due. */
  static final long NEVER = Long.MAX_VALUE;

  /** An instance's counters: they survive a reload that keeps or changes the instance. */
  static final class Counters {
    final AtomicLong sent = new AtomicLong();
    final AtomicLong received = new AtomicLong();
    final EnumMap<State, AtomicLong> transitions = new EnumMap<>(State.class);

    Counters() {
      for (State s : State.values()) {
        transitions.put(s, new AtomicLong());
      }
    }
  }

  final VrrpInstance cfg;
  final Router router;
  final Counters counters;

  /** The addresses its adverts carry, as received adverts are compared with them. */
  final List<InetAddress> advertised;

  Link link;

  /** Set by {@link RunningInstances#place} as soon as the instance is placed. */
  @Nullable VrrpSocket socket;

  long garpDue = NEVER;
  long garpRefreshDue = NEVER;

  /** The last published view, counters left at zero (they are read live). */
  volatile @Nullable InstanceStatus view;

  RunningInstance(VrrpInstance cfg, Router router, Link link, Counters counters) {
    this.cfg = cfg;
    this.router = router;
    this.link = link;
    this.counters = counters;
    this.advertised = cfg.virtualAddresses().stream().map(VirtualAddress::address).toList();
  }

  /** A new instance, in INIT until it is started. */
  static RunningInstance started(VrrpInstance cfg, Link link) {
    return new RunningInstance(cfg, new Router(params(cfg, link)), link, new Counters());
  }

  /** The running {@code old} with the settings of {@code cfg}: state, timers and counters kept. */
  static RunningInstance reconfigured(RunningInstance old, VrrpInstance cfg, Link link) {
    RunningInstance in =
        new RunningInstance(cfg, old.router.reconfigured(params(cfg, link)), link, old.counters);
    in.garpDue = old.garpDue;
    in.garpRefreshDue = old.garpRefreshDue;
    return in;
  }

  /**
   * Where its adverts come from: unicast_src_ip, else the link's address of its family; null when
   * the link has none.
   */
  @Nullable InetAddress source() {
    return sourceOf(cfg, link);
  }

  /**
   * Why a valid advert for this instance's router id is not for it, or empty when it is: keepalived
   * drops one of another version, password, v2 interval or address list.
   */
  Optional<DropKind> mismatch(Advert a, boolean skipCheckAdvAddr) {
    if (a.version() != cfg.version()) {
      return Optional.of(DropKind.VERSION_MISMATCH);
    }
    if (!a.authPass().equals(cfg.authPass())) {
      return Optional.of(DropKind.AUTH);
    }
    if (cfg.version() == 2 && a.intervalCentis() * 10L != cfg.advertInterval().toMillis()) {
      return Optional.of(DropKind.INTERVAL_MISMATCH);
    }
    if (!skipCheckAdvAddr && !a.addresses().equals(advertised)) {
      return Optional.of(DropKind.ADDRESSES);
    }
    return Optional.empty();
  }

  /** Publishes its view (on the event thread, after it changed). */
  void refresh(Optional<String> syncGroup, Instant originWall) {
    view =
        new InstanceStatus(
            cfg.name(),
            cfg.interfaceName(),
            cfg.virtualRouterId(),
            cfg.version(),
            router.state(),
            router.effectivePriority(),
            cfg.priority(),
            router.master(),
            router.masterPriority(),
            originWall.plusNanos(router.since()),
            vipsOf(cfg),
            syncGroup,
            0,
            0,
            Map.of());
  }

  /** Its last published view with the counters now; empty before the first. */
  Optional<InstanceStatus> status() {
    InstanceStatus v = view;
    if (v == null) {
      return Optional.empty();
    }
    EnumMap<State, Long> t = new EnumMap<>(State.class);
    counters.transitions.forEach((s, n) -> t.put(s, n.get()));
    return Optional.of(
        new InstanceStatus(
            v.name(),
            v.interfaceName(),
            v.virtualRouterId(),
            v.version(),
            v.state(),
            v.priority(),
            v.basePriority(),
            v.master(),
            v.masterPriority(),
            v.since(),
            v.virtualAddresses(),
            v.syncGroup(),
            counters.sent.get(),
            counters.received.get(),
            t));
  }

  /** Every address the instance holds as master (virtual_ipaddress and _excluded). */
  static List<InetAddress> vipsOf(VrrpInstance i) {
    return i.allAddresses().stream().map(VirtualAddress::address).toList();
  }

  private static InetAddress sourceOf(VrrpInstance i, Link link) {
    return i.unicastSource()
        .orElseGet(
            () ->
                i.family() == AddressFamily.INET
                    ? link.ipv4().orElse(null)
                    : link.ipv6LinkLocal().orElse(null));
  }

  private static Router.Params params(VrrpInstance i, Link link) {
    return new Router.Params(
        i.name(),
        i.version(),
        i.priority(),
        (int) (i.advertInterval().toMillis() / 10),
        i.preempt(),
        i.preemptDelay().toNanos(),
        i.initialState() == VrrpState.MASTER,
        sourceOf(i, link));
  }
}
