package io.fairway.daemon.announce;

import io.fairway.apply.VirtualServerStatus;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Keeps the announced addresses equal to what this node should attract: an address is announced
 * while every {@code announce} service on it can serve (initialized, and quorum up or its sorry
 * server in use), announcing is on ({@code fairway announce on}) and the node is not stopping. Each
 * {@link #reconcile} compares with what the table holds, so a route someone deleted comes back and
 * one that should not be there goes: drift repair and reload by difference are the same pass.
 * Thread-safe.
 */
public final class Announcer {
  private final Routes routes;
  private Map<String, InetAddress> services;
  private boolean enabled = true;
  private boolean stopping;
  private Set<InetAddress> announced = Set.of();

  /**
   * @param routes where the routes go
   * @param services the announcing virtual servers' names and addresses
   */
  public Announcer(Routes routes, Map<String, InetAddress> services) {
    this.routes = routes;
    this.services = Map.copyOf(services);
  }

  /** A reload: the announcing services from now on (applied at the next {@link #reconcile}). */
  public synchronized void services(Map<String, InetAddress> services) {
    this.services = Map.copyOf(services);
  }

  /** {@code fairway announce on|off}; kept across reloads. */
  public synchronized void enabled(boolean on) {
    this.enabled = on;
  }

  public synchronized boolean enabled() {
    return enabled;
  }

  /** From now on nothing is announced (SIGTERM); the next {@link #reconcile} withdraws all. */
  public synchronized void stopping() {
    this.stopping = true;
  }

  /** The addresses this node should announce, given the applier's status. */
  public synchronized Set<InetAddress> wanted(List<VirtualServerStatus> status) {
    if (!enabled || stopping) {
      return Set.of();
    }
    Map<String, VirtualServerStatus> byName = new HashMap<>();
    status.forEach(s -> byName.put(s.name(), s));
    Map<InetAddress, Boolean> canServe = new HashMap<>();
    services.forEach(
        (name, address) -> {
          VirtualServerStatus s = byName.get(name);
          // Nothing before the service's first verdicts: a node that just started does not
          // attract traffic it may not be able to serve.
          boolean ok = s != null && s.initialized() && (s.quorumUp() || s.sorryServing());
          canServe.merge(address, ok, Boolean::logicalAnd);
        });
    Set<InetAddress> out = new HashSet<>();
    canServe.forEach(
        (a, ok) -> {
          if (ok) {
            out.add(a);
          }
        });
    return out;
  }

  /**
   * Makes the table hold exactly {@link #wanted}: adds what is missing, removes what is extra.
   *
   * @return one line per change ({@code "announced 192.0.2.10"}, {@code "withdrew ..."})
   */
  public synchronized List<String> reconcile(List<VirtualServerStatus> status) throws IOException {
    Set<InetAddress> want = wanted(status);
    Set<InetAddress> have = routes.list();
    List<String> changes = new ArrayList<>();
    for (InetAddress a : have) {
      if (!want.contains(a)) {
        routes.remove(a);
        changes.add("withdrew " + a.getHostAddress());
      }
    }
    for (InetAddress a : want) {
      if (!have.contains(a)) {
        routes.add(a);
        changes.add("announced " + a.getHostAddress());
      }
    }
    announced = Set.copyOf(want);
    return changes;
  }

  /** Every announcing address and whether it is announced, sorted, for status and metrics. */
  public synchronized Map<String, Boolean> view() {
    Map<String, Boolean> out = new java.util.TreeMap<>();
    Set<InetAddress> all = new TreeSet<>(Comparator.comparing(InetAddress::getHostAddress));
    all.addAll(services.values());
    for (InetAddress a : all) {
      out.put(a.getHostAddress(), announced.contains(a));
    }
    return out;
  }
}
