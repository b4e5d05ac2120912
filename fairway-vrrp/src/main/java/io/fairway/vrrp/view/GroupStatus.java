package io.fairway.vrrp.view;

import io.fairway.vrrp.state.State;
import java.util.List;

/**
 * One vrrp_sync_group: FAULT if a member is, MASTER if all are, else BACKUP (as its notify scripts
 * see it).
 */
public record GroupStatus(String name, State state, List<String> members) {
  public GroupStatus {
    members = List.copyOf(members);
  }
}
