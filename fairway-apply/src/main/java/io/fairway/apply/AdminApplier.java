package io.fairway.apply;

import io.fairway.table.TableException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operators' drain / maint / ready / weight over the checkers' verdicts, in front of the {@link
 * Applier}.
 *
 * <p>The check engine's verdicts come in through the same calls the applier has ({@link #init},
 * {@link #setAlive}, {@link #setWeight}, {@link #quorum}); they are recorded as the checkers' view,
 * whatever the admin state, so {@code ready} returns to what the checkers say now. What the applier
 * gets is the effective view:
 *
 * <ul>
 *   <li>alive = checkers' verdict and not {@code maint};
 *   <li>weight = 0 when {@code drain}, else the operator's weight if set, else the checkers';
 *   <li>{@code maint} also tells the applier to remove the destination even with {@code
 *       inhibit_on_failure}.
 * </ul>
 *
 * <p><b>Quorum.</b> While no server of a virtual server has an admin setting, the engine's quorum
 * verdict is passed through unchanged (so nothing differs from keepalived). Once one has, quorum is
 * evaluated here with the same rule ({@link QuorumRule}) over the effective table: a drained server
 * serves nothing and counts 0, a server in maint counts nothing, an operator's weight counts at
 * that weight. Draining every server therefore loses quorum and brings the sorry server in, as a
 * track_file that set every weight to 0 would. When the last setting is cleared, the engine's
 * verdict is taken again.
 *
 * <p>A virtual server with backup tiers ({@link Tiers}) has its quorum evaluated here always: the
 * engine counts every server up by its checks, but a backup standing by serves nothing, so it
 * counts only once no server of a lower tier is up (keepalived's quorum is the weight of the
 * servers in the pool).
 *
 * <p>All methods are synchronized, and call into the applier (which has its own monitor) only while
 * holding this one, so the lock order is always this, then the applier.
 *
 * <p>The checkers' verdicts may be held and published together ({@link Applier#coalesceVerdicts});
 * an operator's action is published before its call returns.
 */
public final class AdminApplier {
  private static final Logger LOG = LoggerFactory.getLogger(AdminApplier.class);

  private final Applier applier;
  private final Consumer<AdminEvent> events;
  private final Map<String, Vs> vss = new LinkedHashMap<>();

  /**
   * @param applier the applier the effective view goes to
   * @param rules each virtual server's quorum rule by name (missing: {@link QuorumRule#DEFAULT})
   * @param events told of every admin action and of the quorum and sorry server changes here
   */
  public AdminApplier(Applier applier, Map<String, QuorumRule> rules, Consumer<AdminEvent> events) {
    this.applier = Objects.requireNonNull(applier);
    this.events = Objects.requireNonNull(events);
    build(applier.config(), rules, Map.of());
  }

  /** The applier behind this layer. */
  public Applier applier() {
    return applier;
  }

  // --- the checkers' side -----------------------------------------------------------------------

  public synchronized boolean initialized(String vs) throws UnknownServerException {
    return applier.initialized(vs);
  }

  /** The checkers' last verdict (not the effective one). */
  public synchronized boolean alive(String vs, String rs) throws UnknownServerException {
    return rs(vs(vs), rs).checkerAlive;
  }

  /** Installs a virtual server from the engine's initial state, with admin settings applied. */
  public synchronized void init(String vsName, InitialState initial)
      throws TableException, UnknownServerException {
    Vs vs = vs(vsName);
    java.util.Set<String> alive = new java.util.HashSet<>();
    Map<String, Integer> weights = new HashMap<>();
    for (Map.Entry<String, Rs> e : vs.servers.entrySet()) {
      Rs rs = e.getValue();
      rs.checkerAlive = initial.alive().contains(e.getKey());
      rs.checkerWeight = initial.weights().getOrDefault(e.getKey(), rs.checkerWeight);
      if (rs.effectiveAlive()) {
        alive.add(e.getKey());
      }
      weights.put(e.getKey(), rs.effectiveWeight());
      if (rs.state == AdminState.MAINT) {
        applier.setMaint(vsName, e.getKey(), true);
      }
    }
    for (String n : initial.alive()) {
      rs(vs, n);
    }
    vs.engineQuorum = initial.quorumUp();
    boolean q = vs.ownQuorum() ? vs.rule.next(false, vs.effectiveSum()) : vs.engineQuorum;
    vs.quorum = q;
    applier.init(vsName, new InitialState(alive, weights, q));
  }

  public synchronized void setAlive(String vsName, String rsName, boolean alive)
      throws TableException, UnknownServerException {
    Vs vs = vs(vsName);
    Rs rs = rs(vs, rsName);
    boolean was = rs.checkerAlive;
    rs.checkerAlive = alive;
    try {
      push(vs, rsName, rs);
    } catch (TableException e) {
      rs.checkerAlive = was;
      throw e;
    }
  }

  public synchronized void setWeight(String vsName, String rsName, long weight)
      throws TableException, UnknownServerException {
    Vs vs = vs(vsName);
    Rs rs = rs(vs, rsName);
    int was = rs.checkerWeight;
    rs.checkerWeight = (int) Math.max(0, Math.min(Integer.MAX_VALUE, weight));
    try {
      push(vs, rsName, rs);
    } catch (TableException e) {
      rs.checkerWeight = was;
      throw e;
    }
  }

  /** The engine's quorum verdict. */
  public synchronized void quorum(String vsName, boolean up)
      throws TableException, UnknownServerException {
    Vs vs = vs(vsName);
    vs.engineQuorum = up;
    requorum(vs, "checkers");
  }

  // --- the operator's side ----------------------------------------------------------------------

  /**
   * Sets a server's admin state; {@link AdminState#NONE} ({@code ready}) also clears an operator's
   * weight.
   */
  public synchronized ServerAdmin setState(String vsName, String rsName, AdminState state)
      throws TableException, UnknownServerException {
    Vs vs = vs(vsName);
    Rs rs = rs(vs, rsName);
    AdminState oldState = rs.state;
    Integer oldWeight = rs.weight;
    rs.state = state;
    if (state == AdminState.NONE) {
      rs.weight = null;
    }
    vs.settingsChanged();
    try {
      push(vs, rsName, rs);
    } catch (TableException e) {
      rs.state = oldState;
      rs.weight = oldWeight;
      vs.settingsChanged();
      throw e;
    } finally {
      applier.publish();
    }
    if (state == AdminState.NONE && oldState != AdminState.NONE) {
      // Back in service after drain or maint: a slow_start server ramps up as after a verdict.
      applier.startSlowStart(vsName, rsName);
    }
    String what = state == AdminState.NONE ? "ready (back to the checkers)" : state.wire();
    LOG.info("{} {}: admin {}", vsName, rsName, what);
    events.accept(new AdminEvent(AdminEvent.Kind.ADMIN, vsName, rsName, "admin: " + what));
    return rs.admin(vsName, rsName);
  }

  /** Sets a server's effective weight until {@code ready} or a reload that changes its weight. */
  public synchronized ServerAdmin setAdminWeight(String vsName, String rsName, int weight)
      throws TableException, UnknownServerException {
    if (weight < 0) {
      throw new IllegalArgumentException("weight must be >= 0, got " + weight);
    }
    Vs vs = vs(vsName);
    Rs rs = rs(vs, rsName);
    Integer old = rs.weight;
    rs.weight = weight;
    vs.settingsChanged();
    try {
      push(vs, rsName, rs);
    } catch (TableException e) {
      rs.weight = old;
      vs.settingsChanged();
      throw e;
    } finally {
      applier.publish();
    }
    LOG.info("{} {}: admin weight {}", vsName, rsName, weight);
    events.accept(new AdminEvent(AdminEvent.Kind.ADMIN, vsName, rsName, "admin: weight " + weight));
    return rs.admin(vsName, rsName);
  }

  /** One server's admin setting. */
  public synchronized ServerAdmin admin(String vsName, String rsName)
      throws UnknownServerException {
    return rs(vs(vsName), rsName).admin(vsName, rsName);
  }

  /** Every server that has an admin setting, in configuration order. */
  public synchronized List<ServerAdmin> settings() {
    List<ServerAdmin> out = new ArrayList<>();
    vss.forEach(
        (vn, vs) ->
            vs.servers.forEach(
                (rn, rs) -> {
                  ServerAdmin a = rs.admin(vn, rn);
                  if (a.isSet()) {
                    out.add(a);
                  }
                }));
    return out;
  }

  /** The checkers' verdict and weight of a server, for status. */
  public synchronized CheckerView checkerView(String vsName, String rsName)
      throws UnknownServerException {
    Rs rs = rs(vs(vsName), rsName);
    return new CheckerView(
        rs.checkerAlive, rs.checkerWeight, rs.effectiveAlive(), rs.effectiveWeight());
  }

  /** What the checkers say and what the table gets. */
  public record CheckerView(
      boolean checkerAlive, int checkerWeight, boolean effectiveAlive, int effectiveWeight) {}

  /**
   * Restores settings (from a state file, before {@link #init}); settings naming servers that do
   * not exist are returned, not applied.
   */
  public synchronized List<ServerAdmin> restore(List<ServerAdmin> saved) throws TableException {
    List<ServerAdmin> unknown = new ArrayList<>();
    for (ServerAdmin a : saved) {
      Vs vs = vss.get(a.virtualServer());
      Rs rs = vs == null ? null : vs.servers.get(a.realServer());
      if (vs == null || rs == null) {
        unknown.add(a);
        continue;
      }
      rs.state = a.state();
      rs.weight = a.weight();
      vs.settingsChanged();
      try {
        push(vs, a.realServer(), rs);
      } catch (UnknownServerException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
    return unknown;
  }

  /**
   * A reload: the applier gets the new configuration, and admin settings are kept for the servers
   * that still exist (by name), except an operator's weight on a server whose configured weight
   * changed — the operator edited the file, so the file wins. If the applier refuses the change,
   * nothing here changes and the exception is thrown.
   */
  public synchronized void replace(
      Map<String, ServiceBinding> config, Map<String, QuorumRule> rules) throws TableException {
    Map<String, ServiceBinding> before = applier.config();
    Map<String, Map<String, Rs>> kept = new HashMap<>();
    vss.forEach((vn, vs) -> kept.put(vn, vs.servers));
    // All or nothing: a refused change puts the applier's state back (and the table to it) and
    // leaves this layer as it was, so the settings still match the running configuration.
    applier.replaceOrRestore(config);
    Map<String, Map<String, Rs>> old = surviving(kept, before, config);
    Map<String, Boolean> quorums = new HashMap<>();
    vss.forEach((vn, vs) -> quorums.put(vn, vs.quorum));
    build(config, rules, old);
    vss.forEach(
        (vn, vs) -> {
          Boolean q = quorums.get(vn);
          if (q != null) {
            vs.quorum = q;
            vs.engineQuorum = q;
          }
        });
    try {
      for (Map.Entry<String, Vs> e : vss.entrySet()) {
        for (Map.Entry<String, Rs> r : e.getValue().servers.entrySet()) {
          try {
            applier.setMaint(e.getKey(), r.getKey(), r.getValue().state == AdminState.MAINT);
          } catch (UnknownServerException ex) {
            throw new IllegalStateException(ex.getMessage(), ex);
          }
        }
      }
    } finally {
      applier.publish();
    }
  }

  /**
   * The settings of the real servers in both configurations, an operator's weight dropped where the
   * configured weight changed.
   */
  private static Map<String, Map<String, Rs>> surviving(
      Map<String, Map<String, Rs>> kept,
      Map<String, ServiceBinding> before,
      Map<String, ServiceBinding> config) {
    Map<String, Map<String, Rs>> old = new HashMap<>();
    for (Map.Entry<String, Map<String, Rs>> e : kept.entrySet()) {
      ServiceBinding nv = config.get(e.getKey());
      ServiceBinding ov = before.get(e.getKey());
      if (nv == null || ov == null) {
        continue;
      }
      Map<String, Rs> m = new HashMap<>();
      e.getValue()
          .forEach(
              (rn, rs) -> {
                ServerBinding nr = nv.servers().get(rn);
                ServerBinding or = ov.servers().get(rn);
                if (nr != null && or != null) {
                  if (rs.weight != null && nr.weight() != or.weight()) {
                    LOG.info(
                        "{} {}: configured weight changed {} -> {}, admin weight {} dropped",
                        e.getKey(),
                        rn,
                        or.weight(),
                        nr.weight(),
                        rs.weight);
                    rs.weight = null;
                  }
                  m.put(rn, rs);
                }
              });
      old.put(e.getKey(), m);
    }
    return old;
  }

  // ---------------------------------------------------------------------------------------------

  private void build(
      Map<String, ServiceBinding> config,
      Map<String, QuorumRule> rules,
      Map<String, Map<String, Rs>> old) {
    vss.clear();
    config.forEach(
        (vn, v) -> {
          Vs vs = new Vs(rules.getOrDefault(vn, QuorumRule.DEFAULT));
          Map<String, Rs> was = old.getOrDefault(vn, Map.of());
          v.servers()
              .forEach(
                  (rn, r) -> {
                    Rs rs = new Rs(r.weight(), r.tier());
                    vs.tiered |= r.tier() > 0;
                    Rs w = was.get(rn);
                    if (w != null) {
                      rs.checkerAlive = w.checkerAlive;
                      rs.checkerWeight = w.checkerWeight + r.weight() - w.configured;
                      rs.state = w.state;
                      rs.weight = w.weight;
                    }
                    rs.configured = r.weight();
                    vs.servers.put(rn, rs);
                  });
          vss.put(vn, vs);
        });
  }

  /** Sends a server's effective view to the applier, then re-evaluates quorum. */
  private void push(Vs vs, String rsName, Rs rs) throws TableException, UnknownServerException {
    String vsName = nameOf(vs);
    if (!applier.initialized(vsName)) {
      return;
    }
    // Into maint: the verdict first (a plain server leaves), then the flag (an inhibit server
    // leaves too). Out of maint: the flag first (an inhibit server is back at weight 0), then the
    // verdict. Either way no destination is removed or added twice.
    boolean maint = rs.state == AdminState.MAINT;
    if (!maint) {
      applier.setMaint(vsName, rsName, false);
    }
    applier.setWeight(vsName, rsName, rs.effectiveWeight());
    applier.setAlive(vsName, rsName, rs.effectiveAlive());
    if (maint) {
      applier.setMaint(vsName, rsName, true);
    }
    requorum(vs, rsName + " " + (rs.state == AdminState.NONE ? "" : "admin " + rs.state.wire()));
  }

  private void requorum(Vs vs, String why) throws TableException, UnknownServerException {
    String vsName = nameOf(vs);
    boolean was = vs.quorum;
    // Without settings or tiers the engine's verdict stands and the sum is not needed:
    // O(servers) per verdict was 10^8 steps for 10,000 servers' first round of checks.
    boolean admin = vs.ownQuorum();
    long sum = admin ? vs.effectiveSum() : -1;
    boolean next = admin ? vs.rule.next(was, sum) : vs.engineQuorum;
    if (next != was && sum < 0) {
      sum = vs.effectiveSum();
    }
    boolean sorryBefore = applier.sorryInstalled(vsName);
    applier.quorum(vsName, next);
    vs.quorum = next;
    if (next != was) {
      events.accept(
          new AdminEvent(
              next ? AdminEvent.Kind.QUORUM_UP : AdminEvent.Kind.QUORUM_DOWN,
              vsName,
              null,
              "quorum "
                  + (next ? "gained" : "lost")
                  + " (serving weight "
                  + sum
                  + ", quorum "
                  + vs.rule.quorum()
                  + ", hysteresis "
                  + vs.rule.hysteresis()
                  + "; "
                  + why.strip()
                  + ")"));
    }
    boolean sorryAfter = applier.sorryInstalled(vsName);
    if (sorryAfter != sorryBefore) {
      events.accept(
          new AdminEvent(
              sorryAfter ? AdminEvent.Kind.SORRY_IN : AdminEvent.Kind.SORRY_OUT,
              vsName,
              null,
              sorryAfter
                  ? "sorry server serving (quorum lost)"
                  : "sorry server out (quorum back)"));
    }
  }

  private String nameOf(Vs vs) {
    for (Map.Entry<String, Vs> e : vss.entrySet()) {
      if (e.getValue() == vs) {
        return e.getKey();
      }
    }
    throw new IllegalStateException("virtual server gone");
  }

  private Vs vs(String name) throws UnknownServerException {
    Vs vs = vss.get(name);
    if (vs == null) {
      throw new UnknownServerException(name, null);
    }
    return vs;
  }

  private Rs rs(Vs vs, String name) throws UnknownServerException {
    Rs rs = vs.servers.get(name);
    if (rs == null) {
      throw new UnknownServerException(nameOf(vs), name);
    }
    return rs;
  }

  private static final class Vs {
    final QuorumRule rule;
    final Map<String, Rs> servers = new LinkedHashMap<>();
    boolean engineQuorum;
    boolean quorum;

    /** A server is above tier 0: quorum counts only the tier that serves. */
    boolean tiered;

    Vs(QuorumRule rule) {
      this.rule = rule;
    }

    /** Whether a server has a setting; null until asked after a change (verdicts change none). */
    private @Nullable Boolean admin;

    /** A server's state or operator's weight changed. */
    void settingsChanged() {
      admin = null;
    }

    boolean hasAdmin() {
      if (admin == null) {
        admin = computeHasAdmin();
      }
      return admin;
    }

    /** Whether quorum is evaluated here rather than taken from the engine. */
    boolean ownQuorum() {
      return tiered || hasAdmin();
    }

    private boolean computeHasAdmin() {
      return servers.values().stream()
          .anyMatch(r -> r.state != AdminState.NONE || r.weight != null);
    }

    /**
     * The weight of the servers that serve: those up, of the lowest tier that has one up at a
     * weight above 0 — the servers of a higher tier stand by ({@link Tiers#standby}, the same rule
     * over the same view; a lower tier's servers at weight 0 add nothing).
     */
    long effectiveSum() {
      int serving = Integer.MAX_VALUE;
      if (tiered) {
        for (Rs r : servers.values()) {
          if (r.effectiveAlive() && r.effectiveWeight() > 0) {
            serving = Math.min(serving, r.tier);
          }
        }
      }
      long s = 0;
      for (Rs r : servers.values()) {
        if (r.effectiveAlive() && (!tiered || r.tier == serving)) {
          s += r.effectiveWeight();
        }
      }
      return s;
    }
  }

  private static final class Rs {
    int configured;
    final int tier;
    boolean checkerAlive;
    int checkerWeight;
    AdminState state = AdminState.NONE;
    @Nullable Integer weight;

    Rs(int configured, int tier) {
      this.configured = configured;
      this.tier = tier;
      this.checkerWeight = configured;
    }

    boolean effectiveAlive() {
      return checkerAlive && state != AdminState.MAINT;
    }

    int effectiveWeight() {
      if (state == AdminState.DRAIN) {
        return 0;
      }
      return weight != null ? weight : Math.max(0, checkerWeight);
    }

    ServerAdmin admin(String vs, String rs) {
      return new ServerAdmin(vs, rs, state, weight);
    }
  }
}
