package io.fairway.daemon.balance;

import io.fairway.director.Backend;
import io.fairway.plan.MemberPlan;

/** A planned real server as a director member: the director returns this, with its address. */
public record RealServerBackend(String name, MemberPlan member) implements Backend {

  /** Wraps a planned real server under its configured name. */
  public static RealServerBackend of(MemberPlan m) {
    return new RealServerBackend(m.name(), m);
  }

  @Override
  public String toString() {
    return name;
  }
}
