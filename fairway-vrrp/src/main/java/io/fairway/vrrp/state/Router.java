package io.fairway.vrrp.state;

import io.fairway.vrrp.packet.Advert;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One VRRP instance's state machine (RFC 5798 section 6.4, with keepalived 2.2's choices):
 *
 * <ul>
 *   <li>start: the address owner (priority 255) becomes master at once; a {@code state MASTER}
 *       instance waits one advert interval plus the minimum skew (to hear an existing master), a
 *       BACKUP the full master down interval;
 *   <li>backup: a priority 0 advert shortens the wait to the skew time; an advert with a lower
 *       priority is ignored when preempting (so the timer runs out and this router takes over),
 *       accepted with {@code nopreempt} or while {@code preempt_delay} runs;
 *   <li>master: a higher priority, or an equal one from a higher address, makes it backup; a
 *       priority 0 or a lower priority advert is answered at once;
 *   <li>stop and fault: a master sends one priority 0 advert so the backup takes over after its
 *       skew time rather than the whole master down interval.
 * </ul>
 *
 * <p>Not thread safe: one driver thread calls it.
 */
public final class Router {
  private static final long NEVER = Long.MAX_VALUE;

  private final Params params;
  private State state = State.INIT;
  private long deadline = NEVER;
  private int effectivePriority;
  private int masterAdvertCentis;
  private long preemptAt;
  private boolean ownFault;
  private boolean groupFault;
  private boolean wantsMaster;
  private Optional<InetAddress> master = Optional.empty();
  private int masterPriority;
  private long since;
  private Predicate<Router> mayBecomeMaster = r -> true;
  private @Nullable Group group;

  /**
   * What the machine needs of an instance.
   *
   * @param name the instance name
   * @param version 2 or 3
   * @param basePriority 1..255
   * @param advertCentis our advertisement interval
   * @param preempt false with nopreempt
   * @param preemptDelayNanos 0 for none
   * @param startAsMaster {@code state MASTER}
   * @param localAddress our source address, for the equal-priority tie break
   */
  public record Params(
      String name,
      int version,
      int basePriority,
      int advertCentis,
      boolean preempt,
      long preemptDelayNanos,
      boolean startAsMaster,
      InetAddress localAddress) {}

  /** Members of a sync group follow each other; see {@link SyncGroupState}. */
  interface Group {
    void followed(Router r, long now, State from, State to, List<Action> out);

    void faultChanged(Router r, long now, boolean wasFaulty, List<Action> out);
  }

  public Router(Params params) {
    this.params = params;
    this.effectivePriority = params.basePriority();
    this.masterAdvertCentis = params.advertCentis();
  }

  public Params params() {
    return params;
  }

  public String name() {
    return params.name();
  }

  public State state() {
    return state;
  }

  /** When {@link #timer} must be called next ({@link Long#MAX_VALUE}: not before another event). */
  public long deadline() {
    return deadline;
  }

  public int effectivePriority() {
    return effectivePriority;
  }

  /** The current master's address, as far as this router knows (itself when master). */
  public Optional<InetAddress> master() {
    return state == State.MASTER ? Optional.of(params.localAddress()) : master;
  }

  /** The priority the current master advertises (ours when master). */
  public int masterPriority() {
    return state == State.MASTER ? effectivePriority : masterPriority;
  }

  /** When the current state was entered. */
  public long since() {
    return since;
  }

  /** Leaves its sync group (a reload rebuilds the groups over the running routers). */
  public void leaveGroup() {
    this.group = null;
    this.mayBecomeMaster = r -> true;
    this.groupFault = false;
  }

  void joinGroup(Group g, Predicate<Router> may) {
    this.group = g;
    this.mayBecomeMaster = may;
  }

  boolean wantsMaster() {
    return wantsMaster || state == State.MASTER;
  }

  boolean faulty() {
    return ownFault || groupFault;
  }

  boolean faultyOwn() {
    return ownFault;
  }

  private long masterDown() {
    return Timing.masterDown(params.version(), skewPriority(), masterAdvertCentis);
  }

  private int skewPriority() {
    return params.basePriority() == 255 ? 255 : effectivePriority;
  }

  private long advertNanos() {
    return params.advertCentis() * Timing.CENTI;
  }

  /**
   * This router with new parameters, for a reload that changed what an instance does but not which
   * instance it is (same interface, router id, family and version): the state, its timer, the
   * master it follows, its fault and a running preempt_delay carry over, so the instance neither
   * flaps nor starts a new election. The effective priority carries too; the caller recomputes it
   * from tracking ({@link #priority}), which tells the backups when it changed. The new router
   * belongs to no sync group until a new {@link SyncGroupState} takes it.
   */
  public Router reconfigured(Params p) {
    Router r = new Router(p);
    r.state = state;
    r.deadline = deadline;
    r.effectivePriority = p.basePriority() == 255 ? 255 : effectivePriority;
    r.masterAdvertCentis =
        state == State.MASTER || p.version() == 2 ? p.advertCentis() : masterAdvertCentis;
    r.preemptAt = p.preemptDelayNanos() > 0 ? preemptAt : 0;
    r.ownFault = ownFault;
    r.wantsMaster = wantsMaster;
    r.master = master;
    r.masterPriority = masterPriority;
    r.since = since;
    return r;
  }

  // --- events ----------------------------------------------------------------------------------

  public List<Action> start(long now) {
    List<Action> out = new ArrayList<>();
    if (state != State.INIT) {
      return out;
    }
    if (faulty()) {
      transition(now, State.FAULT, out);
      return out;
    }
    if (params.basePriority() == 255 && params.startAsMaster()) {
      becomeMaster(now, out);
      return out;
    }
    masterAdvertCentis = params.advertCentis();
    deadline =
        now
            + (params.startAsMaster()
                ? advertNanos() + Timing.skew(params.version(), 255, masterAdvertCentis)
                : masterDown());
    transition(now, State.BACKUP, out);
    return out;
  }

  /** Call when {@code now >= deadline()}. */
  public List<Action> timer(long now) {
    List<Action> out = new ArrayList<>();
    if (now < deadline) {
      return out;
    }
    switch (state) {
      case BACKUP -> {
        wantsMaster = true;
        if (mayBecomeMaster.test(this)) {
          becomeMaster(now, out);
        } else {
          deadline = now + masterDown();
        }
      }
      case MASTER -> {
        out.add(new Action.SendAdvert(this, effectivePriority));
        deadline = now + advertNanos();
      }
      default -> deadline = NEVER;
    }
    return out;
  }

  /**
   * An advertisement for this instance that passed the driver's checks (TTL, version, vrid,
   * authentication, address list).
   */
  public List<Action> advert(long now, Advert a, InetAddress source) {
    List<Action> out = new ArrayList<>();
    switch (state) {
      case BACKUP -> backupReceives(now, a, source);
      case MASTER -> masterReceives(now, a, source, out);
      default -> {}
    }
    return out;
  }

  private void backupReceives(long now, Advert a, InetAddress source) {
    if (a.priority() == 0) {
      deadline = now + Timing.skew(params.version(), skewPriority(), masterAdvertCentis);
      return;
    }
    boolean delaying = params.preemptDelayNanos() > 0 && (preemptAt == 0 || preemptAt > now);
    if (!params.preempt() || a.priority() >= effectivePriority || delaying) {
      if (params.version() == 3) {
        masterAdvertCentis = a.intervalCentis();
      }
      master = Optional.of(source);
      masterPriority = a.priority();
      wantsMaster = false;
      deadline = now + masterDown();
      if (params.preemptDelayNanos() > 0) {
        if (a.priority() >= effectivePriority) {
          preemptAt = 0;
        } else if (preemptAt == 0) {
          preemptAt = now + params.preemptDelayNanos();
        }
      }
    }
    // Otherwise a lower priority advert while preempting: ignored, so the down timer expires and
    // this router takes over.
  }

  private void masterReceives(long now, Advert a, InetAddress source, List<Action> out) {
    int cmp = compare(source, params.localAddress());
    if (a.priority() > effectivePriority || (a.priority() == effectivePriority && cmp > 0)) {
      if (params.version() == 3) {
        masterAdvertCentis = a.intervalCentis();
      }
      master = Optional.of(source);
      masterPriority = a.priority();
      wantsMaster = false;
      deadline = now + masterDown();
      transition(now, State.BACKUP, out);
      return;
    }
    if (a.priority() < effectivePriority) {
      // A priority 0 (the master stopping) or a lower priority router that thinks it is master:
      // tell it at once.
      out.add(new Action.SendAdvert(this, effectivePriority));
      deadline = now + advertNanos();
    }
  }

  /** The effective priority from tracking (ignored for the address owner). */
  public List<Action> priority(long now, int effective) {
    List<Action> out = new ArrayList<>();
    if (params.basePriority() == 255) {
      return out;
    }
    int p = Math.max(1, Math.min(254, effective));
    if (p == effectivePriority) {
      return out;
    }
    effectivePriority = p;
    if (state == State.MASTER) {
      // Tell the backups now: a lower priority may let one of them preempt.
      out.add(new Action.SendAdvert(this, effectivePriority));
      deadline = now + advertNanos();
    }
    return out;
  }

  /**
   * A tracked interface, script (weight 0) or file says the instance cannot work (or can again).
   */
  public List<Action> fault(long now, boolean faulty) {
    List<Action> out = new ArrayList<>();
    boolean was = faulty();
    ownFault = faulty;
    if (group != null) {
      group.faultChanged(this, now, was, out);
    } else {
      changeFault(now, was, out);
    }
    return out;
  }

  void groupFault(boolean faulty) {
    groupFault = faulty;
  }

  void changeFault(long now, boolean was, List<Action> out) {
    if (state == State.INIT || state == State.STOP || was == faulty()) {
      return;
    }
    if (faulty()) {
      if (state == State.MASTER) {
        out.add(new Action.SendAdvert(this, 0));
      }
      wantsMaster = false;
      deadline = NEVER;
      transition(now, State.FAULT, out);
    } else {
      masterAdvertCentis = params.advertCentis();
      deadline = now + masterDown();
      transition(now, State.BACKUP, out);
    }
  }

  /** Shutting down: a master hands over with priority 0. */
  public List<Action> stop(long now) {
    List<Action> out = new ArrayList<>();
    if (state == State.STOP) {
      return out;
    }
    if (state == State.MASTER) {
      out.add(new Action.SendAdvert(this, 0));
    }
    deadline = NEVER;
    group = null;
    transition(now, State.STOP, out);
    return out;
  }

  // --- sync group ------------------------------------------------------------------------------

  void followMaster(long now, List<Action> out) {
    if (state == State.BACKUP) {
      becomeMaster(now, out);
    }
  }

  void followBackup(long now, List<Action> out) {
    if (state == State.MASTER) {
      wantsMaster = false;
      masterAdvertCentis = params.advertCentis();
      deadline = now + masterDown();
      transition(now, State.BACKUP, out);
    }
  }

  // --- internals -------------------------------------------------------------------------------

  private void becomeMaster(long now, List<Action> out) {
    // The advert goes first so the old master drops the addresses before our gratuitous ARPs.
    out.add(new Action.SendAdvert(this, effectivePriority));
    deadline = now + advertNanos();
    preemptAt = 0;
    master = Optional.empty();
    transition(now, State.MASTER, out);
  }

  private void transition(long now, State to, List<Action> out) {
    State from = state;
    if (from == to) {
      return;
    }
    state = to;
    since = now;
    out.add(new Action.Transition(this, from, to));
    if (group != null) {
      group.followed(this, now, from, to, out);
    }
  }

  /** Unsigned comparison of two addresses of one family (RFC 5798: the higher address wins). */
  static int compare(InetAddress a, InetAddress b) {
    byte[] x = a.getAddress();
    byte[] y = b.getAddress();
    if (x.length != y.length) {
      return Integer.compare(x.length, y.length);
    }
    for (int i = 0; i < x.length; i++) {
      int c = Integer.compare(x[i] & 0xff, y[i] & 0xff);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  @Override
  public String toString() {
    return name() + "[" + state + " prio " + effectivePriority + "]";
  }
}
