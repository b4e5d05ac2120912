package io.fairway.vrrp.state;

import java.util.List;

/**
 * A {@code vrrp_sync_group}: as keepalived's vrrp_sync.c, a member becomes master only when every
 * other member wants to as well (their down timers ran out, which avoids thrashing), and then takes
 * the others along; one member going back to backup takes the others back; one member in fault puts
 * the whole group in fault until it recovers.
 */
public final class SyncGroupState {
  private final String name;
  private final List<Router> members;

  public SyncGroupState(String name, List<Router> members) {
    this.name = name;
    this.members = List.copyOf(members);
    Router.Group g =
        new Router.Group() {
          @Override
          public void followed(Router r, long now, State from, State to, List<Action> out) {
            SyncGroupState.this.followed(r, now, from, to, out);
          }

          @Override
          public void faultChanged(Router r, long now, boolean wasFaulty, List<Action> out) {
            SyncGroupState.this.faultChanged(r, now, wasFaulty, out);
          }
        };
    for (Router r : this.members) {
      r.joinGroup(g, this::mayBecomeMaster);
    }
  }

  public String name() {
    return name;
  }

  public List<Router> members() {
    return members;
  }

  /** The group's state as notify scripts see it: FAULT if any, MASTER if all, else BACKUP. */
  public State state() {
    if (members.stream().anyMatch(r -> r.state() == State.FAULT)) {
      return State.FAULT;
    }
    if (members.stream().allMatch(r -> r.state() == State.MASTER)) {
      return State.MASTER;
    }
    if (members.stream().allMatch(r -> r.state() == State.STOP)) {
      return State.STOP;
    }
    return State.BACKUP;
  }

  private boolean mayBecomeMaster(Router self) {
    for (Router r : members) {
      if (r != self && !r.wantsMaster() && r.state() != State.STOP) {
        return false;
      }
    }
    return true;
  }

  private boolean inProgress;

  /** One member's own fault changed: every member is in fault while any member is. */
  private void faultChanged(Router r, long now, boolean wasFaulty, List<Action> out) {
    inProgress = true;
    try {
      boolean[] was = new boolean[members.size()];
      for (int i = 0; i < members.size(); i++) {
        Router m = members.get(i);
        was[i] = m == r ? wasFaulty : m.faulty();
        boolean other = false;
        for (Router o : members) {
          other |= o != m && o.faultyOwn();
        }
        m.groupFault(other);
      }
      for (int i = 0; i < members.size(); i++) {
        members.get(i).changeFault(now, was[i], out);
      }
    } finally {
      inProgress = false;
    }
  }

  private void followed(Router r, long now, State from, State to, List<Action> out) {
    if (inProgress) {
      return;
    }
    inProgress = true;
    try {
      if (to == State.MASTER) {
        for (Router m : members) {
          if (m != r) {
            m.followMaster(now, out);
          }
        }
      } else if (from == State.MASTER && to == State.BACKUP) {
        for (Router m : members) {
          if (m != r) {
            m.followBackup(now, out);
          }
        }
      }
    } finally {
      inProgress = false;
    }
  }
}
