package io.fairway.vrrp;

import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.vrrp.state.Router;
import io.fairway.vrrp.state.State;
import java.util.List;

/**
 * One vrrp_sync_group as the speaker runs it: its configuration, the group state machine over its
 * members' routers, the state last notified (event thread) and the state shown (any thread).
 */
final class RunningGroup {
  final SyncGroup cfg;
  final io.fairway.vrrp.state.SyncGroupState machine;
  State last;
  volatile State shown;

  /**
   * @param members the members' routers, in the configuration's order
   * @param last the state the group had before a reload rebuilt it (INIT for a new one)
   */
  RunningGroup(SyncGroup cfg, List<Router> members, State last) {
    this.cfg = cfg;
    this.machine = new io.fairway.vrrp.state.SyncGroupState(cfg.name(), members);
    this.last = last;
    this.shown = last;
  }
}
