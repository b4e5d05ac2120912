package io.fairway.vrrp;

import io.fairway.config.model.vrrp.VrrpScript;
import io.fairway.vrrp.state.ScriptStatus;

/**
 * One vrrp_script's runs: its rise/fall status, when it is due and whether a run is in flight.
 * Replaced (not reused) when a reload changes the script. Owned by the event thread.
 */
final class ScriptRun {
  final VrrpScript cfg;
  final ScriptStatus status;
  long due;
  boolean inFlight;

  ScriptRun(VrrpScript cfg, ScriptStatus status, long due) {
    this.cfg = cfg;
    this.status = status;
    this.due = due;
  }
}
