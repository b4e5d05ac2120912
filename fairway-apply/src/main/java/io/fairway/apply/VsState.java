package io.fairway.apply;

import io.fairway.table.ServiceKey;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What the applier knows of one virtual server: its configuration, its real servers ({@link
 * RsState}) and one immutable {@link Facts}, replaced whole on every change, so that a copy taken
 * before a reload ({@link #copy}) is all of it.
 */
final class VsState {
  /**
   * One virtual server's state at one moment.
   *
   * @param initialized whether its services are installed
   * @param quorumUp its quorum
   * @param sorryServing the sorry server is in the table at its weight because quorum is lost
   * @param sorryPresent the sorry server is in the table at all (at weight 0 when it stands by)
   * @param overflowing services whose pool is full, so the standing-by sorry server is at its
   *     weight
   */
  record Facts(
      boolean initialized,
      boolean quorumUp,
      boolean sorryServing,
      boolean sorryPresent,
      Set<ServiceKey> overflowing) {
    Facts {
      overflowing = Set.copyOf(overflowing);
    }
  }

  final ServiceBinding config;
  final Map<String, RsState> servers;

  /**
   * Whether any server is above tier 0 (a backup): without one, a verdict need not look at the
   * other servers for the backups it moves ({@link Tiers#standing}), which kept the verdict path
   * O(1) for large pools. The servers are always those of {@link #config}.
   */
  final boolean tiered;

  private Facts facts = new Facts(false, false, false, false, Set.of());

  VsState(ServiceBinding config) {
    this.config = config;
    this.servers = new LinkedHashMap<>();
    boolean t = false;
    for (ServerBinding rs : config.servers().values()) {
      servers.put(rs.name(), new RsState(rs));
      t |= rs.tier() > 0;
    }
    this.tiered = t;
  }

  /** An independent copy, to go back to when a change fails. */
  VsState copy() {
    VsState c = new VsState(config);
    c.servers.clear();
    servers.forEach((k, rs) -> c.servers.put(k, rs.copy()));
    c.facts = facts;
    return c;
  }

  Facts facts() {
    return facts;
  }

  boolean initialized() {
    return facts.initialized();
  }

  void initialized(boolean v) {
    Facts f = facts;
    facts = new Facts(v, f.quorumUp(), f.sorryServing(), f.sorryPresent(), f.overflowing());
  }

  boolean quorumUp() {
    return facts.quorumUp();
  }

  void quorumUp(boolean v) {
    Facts f = facts;
    facts = new Facts(f.initialized(), v, f.sorryServing(), f.sorryPresent(), f.overflowing());
  }

  boolean sorryServing() {
    return facts.sorryServing();
  }

  void sorryServing(boolean v) {
    Facts f = facts;
    facts = new Facts(f.initialized(), f.quorumUp(), v, f.sorryPresent(), f.overflowing());
  }

  boolean sorryPresent() {
    return facts.sorryPresent();
  }

  void sorryPresent(boolean v) {
    Facts f = facts;
    facts = new Facts(f.initialized(), f.quorumUp(), f.sorryServing(), v, f.overflowing());
  }

  /** The overflowing services (an immutable set). */
  Set<ServiceKey> overflowing() {
    return facts.overflowing();
  }

  void overflowing(Set<ServiceKey> v) {
    Facts f = facts;
    facts = new Facts(f.initialized(), f.quorumUp(), f.sorryServing(), f.sorryPresent(), v);
  }

  /** Marks one service as overflowing or not. */
  void overflowing(ServiceKey key, boolean on) {
    Set<ServiceKey> s = new HashSet<>(facts.overflowing());
    if (on) {
      s.add(key);
    } else {
      s.remove(key);
    }
    overflowing(s);
  }

  /** "Change only if we have quorum or no sorry server" (ipwrapper.c:612-616). */
  boolean mayChangeServers() {
    return quorumUp() || config.sorryServer() == null || !sorryServing();
  }

  RsState rs(String name) throws UnknownServerException {
    RsState rs = servers.get(name);
    if (rs == null) {
      throw new UnknownServerException(config.name(), name);
    }
    return rs;
  }
}
