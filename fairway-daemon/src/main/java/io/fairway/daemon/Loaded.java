package io.fairway.daemon;

import io.fairway.apply.LvsGlobals;
import io.fairway.apply.QuorumRule;
import io.fairway.apply.ServiceBinding;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.plan.Plan;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A configuration ready to run: what the applier installs and what the check engine checks, under
 * the same virtual and real server names.
 *
 * @param bindings the applier's virtual servers by name
 * @param specs the check engine's virtual servers, same names
 * @param warnings load warnings ({@code FILE:LINE: message}), logged at start and reload
 * @param lvs the global LVS keywords ({@code lvs_flush}, {@code lvs_flush_on_stop}, {@code
 *     lvs_timeouts})
 * @param plan the plan both were derived from, which data planes that read more than the table
 *     ({@link io.fairway.plan.PlanTarget}) are given
 * @param announce what the file says about announcing addresses by BGP
 */
public record Loaded(
    Map<String, ServiceBinding> bindings,
    List<VirtualServerSpec> specs,
    List<String> warnings,
    LvsGlobals lvs,
    Plan plan,
    io.fairway.daemon.announce.AnnounceSettings announce) {
  public Loaded {
    bindings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(bindings));
    specs = List.copyOf(specs);
    warnings = List.copyOf(warnings);
    java.util.Objects.requireNonNull(lvs, "lvs");
    plan = plan == null ? Plan.EMPTY : plan;
    announce = announce == null ? io.fairway.daemon.announce.AnnounceSettings.NONE : announce;
  }

  /** Each virtual server's quorum and hysteresis by name, as the admin layer takes them. */
  public Map<String, QuorumRule> quorumRules() {
    Map<String, QuorumRule> rules = new HashMap<>();
    for (VirtualServerSpec s : specs) {
      rules.put(s.name(), new QuorumRule(s.quorum(), s.hysteresis()));
    }
    return rules;
  }

  /** A configuration that announces nothing. */
  public Loaded(
      Map<String, ServiceBinding> bindings,
      List<VirtualServerSpec> specs,
      List<String> warnings,
      LvsGlobals lvs,
      Plan plan) {
    this(bindings, specs, warnings, lvs, plan, io.fairway.daemon.announce.AnnounceSettings.NONE);
  }

  /** A configuration with its global LVS keywords but no plan (tests of the table path). */
  public Loaded(
      Map<String, ServiceBinding> bindings,
      List<VirtualServerSpec> specs,
      List<String> warnings,
      LvsGlobals lvs) {
    this(bindings, specs, warnings, lvs, Plan.EMPTY);
  }

  /** A configuration without global LVS keywords. */
  public Loaded(
      Map<String, ServiceBinding> bindings, List<VirtualServerSpec> specs, List<String> warnings) {
    this(bindings, specs, warnings, LvsGlobals.NONE, Plan.EMPTY);
  }
}
