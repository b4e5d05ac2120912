package io.fairway.apply;

import static io.fairway.apply.FanOut.destFor;
import static io.fairway.apply.FanOut.forEachService;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reload: the table changed by difference from the running configuration to the new one, as
 * keepalived's clear_diff_services and its add-what-is-new pass do (see {@link Applier#replace}),
 * and removing everything an applier installed.
 */
final class Reload {
  private static final Logger LOG = LoggerFactory.getLogger(Reload.class);

  private final TolerantTable table;
  private final RampSteps ramps;
  private final ServerMoves moves;
  private final SorryMoves sorry;

  Reload(TolerantTable table, RampSteps ramps, ServerMoves moves, SorryMoves sorry) {
    this.table = table;
    this.ramps = ramps;
    this.moves = moves;
    this.sorry = sorry;
  }

  /** The services before and after, by key. */
  private record Services(Map<ServiceKey, Service> old, Map<ServiceKey, Service> now) {
    static Services of(ServiceBinding old, ServiceBinding now) {
      Map<ServiceKey, Service> o = new LinkedHashMap<>();
      old.services().forEach(s -> o.put(s.key(), s));
      Map<ServiceKey, Service> n = new LinkedHashMap<>();
      now.services().forEach(s -> n.put(s.key(), s));
      return new Services(o, n);
    }

    boolean isNew(Service s) {
      return !old.containsKey(s.key());
    }
  }

  /** Replaces {@code vss} (name to state) with the states for {@code newConfig}. */
  void replace(Map<String, VsState> vss, Map<String, ServiceBinding> newConfig)
      throws TableException {
    for (VsState old : List.copyOf(vss.values())) {
      if (!newConfig.containsKey(old.config.name())) {
        LOG.info("{}: removed from the configuration", old.config.name());
        if (old.initialized()) {
          removeAll(old);
        }
        vss.remove(old.config.name());
      }
    }
    Map<String, VsState> next = new LinkedHashMap<>();
    for (Map.Entry<String, ServiceBinding> e : newConfig.entrySet()) {
      VsState old = vss.get(e.getKey());
      if (old == null || !old.initialized()) {
        next.put(e.getKey(), new VsState(e.getValue()));
      } else {
        next.put(e.getKey(), reconcile(old, e.getValue()));
      }
    }
    vss.clear();
    vss.putAll(next);
  }

  private VsState reconcile(VsState old, ServiceBinding cfg) throws TableException {
    VsState vs = new VsState(cfg);
    vs.initialized(true);
    vs.quorumUp(old.quorumUp());
    Services services = Services.of(old.config, cfg);
    services(cfg.name(), services, cfg);
    removeGoneServers(old, cfg, services);
    boolean dropOldSorry = reconcileSorry(old, vs, services);
    Map<DestKey, RsState> oldByKey = new HashMap<>();
    old.servers.values().forEach(rs -> oldByKey.put(rs.config.dest().key(), rs));
    // Every server's state first, then the moves: whether a backup stands by depends on the
    // verdicts of the lower tiers, which may come later in the configuration's order.
    Map<RsState, RsState> was = new LinkedHashMap<>();
    for (ServerBinding rc : cfg.servers().values()) {
      RsState rs = new RsState(rc);
      vs.servers.put(rc.name(), rs);
      RsState w = oldByKey.get(rc.dest().key());
      if (w != null) {
        takeOver(vs, w, rs);
      }
      was.put(rs, w);
    }
    // Servers that go in before those that go out or are drained, so that a backup taking over
    // from a lower tier (its tier renumbered) is in before the server it stands in for leaves.
    Set<RsState> in = new java.util.HashSet<>();
    for (Map.Entry<RsState, RsState> e : was.entrySet()) {
      if (goesIn(vs, e.getValue(), e.getKey())) {
        in.add(e.getKey());
      }
    }
    for (boolean first : new boolean[] {true, false}) {
      for (Map.Entry<RsState, RsState> e : was.entrySet()) {
        if (in.contains(e.getKey()) == first) {
          reconcileServer(old, vs, e.getValue(), e.getKey());
        }
      }
    }
    Dest oldSorry = old.config.sorryServer();
    if (dropOldSorry) {
      Objects.requireNonNull(oldSorry, "dropped sorry server"); // only one that was there drops
      LOG.info("{}: removing sorry server {}", cfg.name(), oldSorry.key());
      for (Service s : cfg.services()) {
        if (!services.isNew(s)) {
          table.delDest(s.key(), destFor(s, oldSorry, 0).key());
        }
      }
    }
    fillNewServices(vs, services);
    sorry.standBy(vs);
    return vs;
  }

  private void services(String name, Services services, ServiceBinding cfg) throws TableException {
    for (ServiceKey k : services.old().keySet()) {
      if (!services.now().containsKey(k)) {
        LOG.info("{}: removing service {}", name, k);
        table.delService(k);
      }
    }
    for (Service s : cfg.services()) {
      Service was = services.old().get(s.key());
      if (was != null && !was.equals(s)) {
        LOG.info("{}: changing service {} -> {}", name, was, s);
        table.setService(s);
      }
    }
    for (Service s : cfg.services()) {
      if (services.isNew(s)) {
        LOG.info("{}: adding service {}", name, s.key());
        table.addService(s);
      }
    }
  }

  /** Real servers are matched by identity: address and configured port. */
  private void removeGoneServers(VsState old, ServiceBinding cfg, Services services)
      throws TableException {
    Set<DestKey> kept = new java.util.HashSet<>();
    cfg.servers().values().forEach(rs -> kept.add(rs.dest().key()));
    for (RsState rs : old.servers.values()) {
      if (!kept.contains(rs.config.dest().key()) && rs.present()) {
        LOG.info("{}: removing {} (gone from the configuration)", cfg.name(), rs.config.name());
        for (Service s : old.config.services()) {
          if (services.now().containsKey(s.key())) {
            table.delDest(s.key(), destFor(s, rs.config.dest(), 0).key());
          }
        }
      }
    }
  }

  /**
   * The sorry server goes in before real servers come out and out after they are back.
   *
   * @return whether the old sorry server is to be removed once the real servers are in
   */
  private boolean reconcileSorry(VsState old, VsState vs, Services services) throws TableException {
    ServiceBinding cfg = vs.config;
    Dest oldSorry = old.config.sorryServer();
    Dest newSorry = cfg.sorryServer();
    if (oldSorry == null || newSorry == null || !oldSorry.key().equals(newSorry.key())) {
      // A virtual server below quorum gets its (new) sorry server, as keepalived's init disjunct.
      if (newSorry != null && (old.sorryServing() || !vs.quorumUp())) {
        sorry.in(vs);
      }
      return oldSorry != null && old.sorryPresent();
    }
    vs.sorryServing(old.sorryServing());
    vs.sorryPresent(old.sorryPresent());
    if (cfg.overflow()) {
      // Still overflowing where it was: the next reading lowers it if the pool has room.
      Set<ServiceKey> still = new java.util.HashSet<>(old.overflowing());
      still.retainAll(services.now().keySet());
      vs.overflowing(still);
    }
    if (vs.sorryPresent() && !vs.sorryServing() && !cfg.sorryStandsBy()) {
      forEachService(vs, s -> table.delDest(s.key(), destFor(s, newSorry, 0).key()));
      vs.sorryPresent(false);
      vs.overflowing(Set.of());
    } else if (vs.sorryPresent()) {
      for (Service s : cfg.services()) {
        if (services.isNew(s)) {
          continue; // a new service: added with everything else below
        }
        int was = old.sorryServing() || old.overflowing().contains(s.key()) ? oldSorry.weight() : 0;
        int w = SorryMoves.weight(vs, s);
        if (w != was || !oldSorry.equals(newSorry)) {
          table.setDest(s.key(), destFor(s, newSorry, w));
        }
      }
    }
    return false;
  }

  /**
   * A kept real server keeps its verdict, presence, ramp and dynamic weight contribution (its
   * weight moved by as much as its configured weight did).
   */
  private void takeOver(VsState vs, RsState was, RsState rs) throws TableException {
    ServerBinding rc = rs.config;
    rs.takeOver(was.facts());
    if (rs.ramping() && !rc.slowStart().equals(was.config.slowStart())) {
      ramps.hand(vs, rs); // the same ramp, with its new length
    }
    long w = (long) was.weight() + rc.weight() - was.config.weight();
    rs.weight((int) Math.max(0, Math.min(Integer.MAX_VALUE, w)));
  }

  /** Whether reconciling the server puts it in the table (rather than out, or leaving it). */
  private static boolean goesIn(VsState vs, RsState was, RsState rs) {
    if (was == null) {
      return rs.config.inhibit();
    }
    return !rs.present() && DesiredTable.weight(vs, rs) != null;
  }

  /**
   * Moves a server to where its state (taken over, {@link #takeOver}) says: a new one starts down
   * (at weight 0 if inhibit).
   */
  private void reconcileServer(VsState old, VsState vs, RsState was, RsState rs)
      throws TableException {
    ServerBinding rc = rs.config;
    if (was == null) {
      if (rc.inhibit()) {
        moves.in(vs, rs);
      }
      return;
    }
    Integer want = DesiredTable.weight(vs, rs);
    Integer have = rs.present() ? DesiredTable.weight(old, was) : null;
    if (rs.present() && want == null) {
      moves.out(vs, rs, true);
    } else if (!rs.present() && want != null) {
      moves.in(vs, rs);
    } else if (rs.present()
        && (!sameDest(was.config.dest(), rc.dest()) || !Objects.equals(want, have))) {
      LOG.info("{}: changing {} (weight {})", vs.config.name(), rc.name(), want);
      moves.setWeight(vs, rs, Objects.requireNonNull(want, "weight")); // null went out above
    }
  }

  /**
   * Services new to this virtual server (a group that grew) get every destination present; those
   * the steps before already wrote are set again, harmlessly.
   */
  private void fillNewServices(VsState vs, Services services) throws TableException {
    for (Service s : vs.config.services()) {
      if (!services.isNew(s)) {
        continue;
      }
      for (RsState rs : vs.servers.values()) {
        Integer w = DesiredTable.weight(vs, rs);
        if (w != null && rs.present()) {
          table.addDest(s.key(), destFor(s, rs.config.dest(), w));
        }
      }
      if (vs.sorryPresent()) {
        Dest sorry = Objects.requireNonNull(vs.config.sorryServer(), "present sorry server");
        table.addDest(s.key(), destFor(s, sorry, SorryMoves.weight(vs, s)));
      }
    }
  }

  private static boolean sameDest(Dest a, Dest b) {
    return a.forwarding() == b.forwarding()
        && a.upperThreshold() == b.upperThreshold()
        && a.lowerThreshold() == b.lowerThreshold()
        && Objects.equals(a.tunnel(), b.tunnel());
  }

  /** Everything the virtual server has in the table, then its services. */
  void removeAll(VsState vs) throws TableException {
    // Deleting a service deletes its destinations in the kernel; sorry and real servers go first
    // anyway so a table that shares nothing else behaves like keepalived's clear_service_vs.
    Dest sorryDest = vs.config.sorryServer();
    for (Service s : vs.config.services()) {
      if (sorryDest != null && vs.sorryPresent()) {
        table.delDest(s.key(), destFor(s, sorryDest, 0).key());
      }
      for (RsState rs : vs.servers.values()) {
        if (rs.present()) {
          table.delDest(s.key(), destFor(s, rs.config.dest(), 0).key());
        }
      }
      LOG.info("Removing service {} ({})", s.key(), vs.config.name());
      table.delService(s.key());
    }
    forget(vs);
  }

  /** The services of every installed virtual server, leaving their destinations to the kernel. */
  void removeServices(java.util.Collection<VsState> vss) throws TableException {
    for (VsState vs : vss) {
      if (!vs.initialized()) {
        continue;
      }
      for (Service s : vs.config.services()) {
        LOG.info("Removing service {} ({})", s.key(), vs.config.name());
        table.delService(s.key());
      }
      forget(vs);
    }
  }

  /** The virtual server has nothing in the table any more. */
  static void forget(VsState vs) {
    vs.sorryPresent(false);
    vs.sorryServing(false);
    vs.overflowing(Set.of());
    vs.servers.values().forEach(rs -> rs.present(false));
  }
}
