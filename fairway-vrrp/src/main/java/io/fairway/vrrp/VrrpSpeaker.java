package io.fairway.vrrp;

import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.os.script.ScriptExecutor;
import io.fairway.os.script.ScriptOutcome;
import io.fairway.vrrp.io.Link;
import io.fairway.vrrp.io.LinkWatch;
import io.fairway.vrrp.io.VrrpSocket;
import io.fairway.vrrp.packet.Advert;
import io.fairway.vrrp.state.Action;
import io.fairway.vrrp.state.Priority;
import io.fairway.vrrp.state.Router;
import io.fairway.vrrp.state.State;
import io.fairway.vrrp.view.GroupStatus;
import io.fairway.vrrp.view.InstanceStatus;
import io.fairway.vrrp.view.VrrpSnapshot;
import io.fairway.vrrp.view.VrrpTransition;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the VRRP instances of a configuration: one event thread owns every {@link Router} and does
 * all sends, address changes and notifications in the order the state machines ask; one receive
 * thread per (interface, family, group) socket, a poller for interfaces and track files, and the
 * script executor for vrrp_script and notify scripts post events to it.
 *
 * <p>This class sequences; the concerns it sequences are apart: {@link SystemCheck} (a
 * configuration against the running system), {@link SpeakerSockets} (sockets and receive threads),
 * {@link AdvertIntake} (which instances a received advert is for), {@link AddressControl} (virtual
 * addresses and their announcements), {@link Tracking} (what instances track), {@link ScriptRunner}
 * (vrrp_script and notify scripts) and {@link RunningInstance} (one instance's runtime and
 * published view).
 *
 * <p>A reload ({@link #prepare}, then {@link Prepared#apply}) is applied by difference ({@link
 * VrrpDiff}) on the event thread: unchanged instances are not touched, changed ones keep their
 * state, removed masters hand over with priority 0. Everything that can fail against the running
 * system (interfaces, addresses on other interfaces, sockets) is checked first, so a refused reload
 * changes nothing.
 */
public final class VrrpSpeaker implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(VrrpSpeaker.class);
  private static final long POLL_NANOS = 200_000_000L;
  private static final long NEVER = RunningInstance.NEVER;

  private final ScriptRunner scripts;
  private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
  private final PacketCounters counters = new PacketCounters();
  private final SpeakerSockets sockets = new SpeakerSockets(counters);
  private final List<Consumer<VrrpTransition>> listeners = new CopyOnWriteArrayList<>();
  private final long origin = System.nanoTime();
  private final Instant originWall = Instant.now();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AdvertIntake intake = new AdvertIntake(counters);
  private final VrrpConfig initial;

  // --- owned by the event thread (set before it starts) ----------------------------------------
  private VrrpConfig config = VrrpConfig.empty();
  private final RunningInstances instances = new RunningInstances();
  private long nextPoll;

  /** The track_file paths until {@link #start} hands them to {@link #tracking}. */
  private Map<String, Path> trackFilePaths = Map.of();

  /** While a reload removes instances: their STOP notifies as keepalived's deletion does. */
  private boolean removing;

  /** Opened by {@link #start}; null before (see {@link #addresses()}). */
  private @Nullable AddressControl addresses;

  private @Nullable Tracking tracking;

  // --- read by any thread ----------------------------------------------------------------------
  private volatile boolean running;

  /**
   * @param config the VRRP part of the configuration
   * @param scriptUser global_defs {@code script_user} (the user scripts run as by default)
   * @param scripts the executor for vrrp_script and notify scripts, or null for a private one
   */
  public VrrpSpeaker(
      VrrpConfig config, Optional<String> scriptUser, @Nullable ScriptExecutor scripts) {
    this.initial = config;
    this.scripts = new ScriptRunner(scriptUser, scripts);
  }

  /**
   * Told of each instance's state changes, on the event thread, in the order they happen, after the
   * change's addresses and notify scripts were started. Must not block for long (adverts wait).
   */
  @FunctionalInterface
  public interface StateListener {
    void changed(String instance, State from, State to);
  }

  /** Adds a listener of instance changes (not groups'); add it before {@link #start}. */
  public void onStateChange(StateListener l) {
    Objects.requireNonNull(l);
    onTransition(
        t -> {
          if (!t.group()) {
            l.changed(t.name(), t.from(), t.to());
          }
        });
  }

  /** Also tells {@code listener} of every state change (on the event thread: be quick). */
  public void onTransition(Consumer<VrrpTransition> listener) {
    listeners.add(listener);
  }

  /** Set by the daemon before {@link #start}: the top-level track_file paths by name. */
  public void trackFiles(Map<String, Path> paths) {
    trackFilePaths = Map.copyOf(paths);
  }

  /**
   * Checks the instances against the running system (interfaces exist, virtual addresses are not on
   * another interface), opens sockets and starts the state machines.
   *
   * @throws VrrpStartException one line per problem, naming the instance and its file:line
   */
  public void start() throws IOException {
    Map<String, Link> links = SystemCheck.links(initial, Set.of());
    Map<SpeakerSockets.Key, VrrpSocket> opened = sockets.open(initial);
    addresses = AddressControl.open(counters);
    tracking = new Tracking(LinkWatch.open(), this::now);
    running = true;
    Thread t = new Thread(this::runLoop, "fairway-vrrp");
    t.setDaemon(true);
    // The first apply runs before the loop starts, on this thread: nothing else runs yet.
    apply(initial, links, trackFilePaths);
    t.start();
    startReceivers(opened);
  }

  /**
   * Checks a new configuration against the running system and opens the sockets it needs, so that
   * applying it cannot fail half way: the first step of a reload. Nothing changes until {@link
   * Prepared#apply}; {@link Prepared#abandon} closes what was opened.
   *
   * @param next the new VRRP part of the configuration
   * @param trackFiles the new top-level track_file paths by name
   * @throws VrrpStartException the new configuration does not fit the running system (one {@code
   *     FILE:LINE: message} per problem)
   * @throws IOException a socket could not be opened
   */
  public Prepared prepare(VrrpConfig next, Map<String, Path> trackFiles) throws IOException {
    if (!running) {
      throw new IOException("VRRP is not running");
    }
    Set<InetAddress> ours = new HashSet<>();
    for (RunningInstance in : instances.published()) {
      in.cfg.allAddresses().forEach(a -> ours.add(a.address()));
    }
    Map<String, Link> links = SystemCheck.links(next, ours);
    return new Prepared(next, links, sockets.open(next), Map.copyOf(trackFiles));
  }

  /** A reload that fits the running system, ready to apply by difference ({@link VrrpDiff}). */
  public final class Prepared {
    private final VrrpConfig next;
    private final Map<String, Link> links;
    private final Map<SpeakerSockets.Key, VrrpSocket> opened;
    private final Map<String, Path> trackFiles;

    private Prepared(
        VrrpConfig next,
        Map<String, Link> links,
        Map<SpeakerSockets.Key, VrrpSocket> opened,
        Map<String, Path> trackFiles) {
      this.next = next;
      this.links = links;
      this.opened = opened;
      this.trackFiles = trackFiles;
    }

    /**
     * Applies it on the event thread and waits.
     *
     * @return what changed, one line ({@link VrrpDiff#summary})
     */
    public String apply() throws IOException {
      CompletableFuture<String> done = new CompletableFuture<>();
      inbox.add(
          () -> {
            try {
              done.complete(VrrpSpeaker.this.apply(next, links, trackFiles));
            } catch (RuntimeException e) {
              done.completeExceptionally(e);
            }
          });
      try {
        String summary = done.get(10, TimeUnit.SECONDS);
        startReceivers(opened);
        return summary;
      } catch (ExecutionException e) {
        throw new IOException("applying the VRRP reload: " + e.getCause(), e.getCause());
      } catch (TimeoutException e) {
        // It stays queued and runs before anything received after it: the new sockets must be
        // read, or the instances it starts would never hear an advert.
        startReceivers(opened);
        throw new IOException(
            "the VRRP event thread did not apply the reload within 10 s (it applies when the"
                + " thread gets to it)");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while reloading VRRP");
      }
    }

    /** Not applied after all (the rest of the reload was refused): closes the new sockets. */
    public void abandon() {
      sockets.abandon(opened);
    }
  }

  /**
   * The start-time checks alone (interfaces exist, virtual addresses are not on another interface),
   * for a reload that would start VRRP.
   *
   * @throws VrrpStartException one line per problem
   */
  public static void checkSystem(VrrpConfig c) throws VrrpStartException {
    SystemCheck.links(c, Set.of());
  }

  private void startReceivers(Map<SpeakerSockets.Key, VrrpSocket> opened) {
    sockets.startReceivers(opened, () -> running, this::received);
  }

  private long now() {
    return System.nanoTime() - origin;
  }

  // --- applying a configuration (the event thread) ---------------------------------------------

  private String apply(VrrpConfig next, Map<String, Link> links, Map<String, Path> trackFiles) {
    long now = now();
    VrrpDiff diff = VrrpDiff.of(config, next);
    Map<String, State> groupStates = instances.dropGroups();
    removeInstances(diff, now);
    List<RunningInstance> started = instances.place(next, diff, links, sockets, addresses()::move);
    config = next;
    intake.index(next, instances.all());
    instances.rebuildGroups(next, groupStates);
    tracking().configure(next, trackFiles, now);
    sockets.closeUnused(instances.all());
    for (RunningInstance in : started) {
      // As keepalived at startup: addresses a previous run left behind go (we are not master).
      in.cfg.allAddresses().forEach(a -> addresses().remove(in, a));
    }
    tracking().forgetLinks();
    for (RunningInstance in : instances.all()) {
      pollTracking(in, now);
    }
    for (RunningInstance in : started) {
      perform(in.router.start(now), false);
    }
    instances.publish();
    instances.all().forEach(this::refresh);
    String summary = diff.summary();
    if (!diff.isEmpty() || !started.isEmpty()) {
      log.info("VRRP: {}", summary);
    }
    return summary;
  }

  /** The instances a reload removes stop; a master hands over with priority 0. */
  private void removeInstances(VrrpDiff diff, long now) {
    for (String name : diff.removed()) {
      // A removed instance is one of the running configuration's, so it is placed.
      RunningInstance in = Objects.requireNonNull(instances.get(name));
      log.info(
          "({}) removed by the reload{}",
          name,
          in.router.state() == State.MASTER ? ": handing over with priority 0" : "");
      removing = true;
      try {
        perform(in.router.stop(now), false);
      } finally {
        removing = false;
      }
      instances.remove(name);
    }
  }

  // --- the event thread ------------------------------------------------------------------------

  private void runLoop() {
    try {
      while (running) {
        long now = now();
        long wait = Math.max(0, nextDeadline() - now);
        Runnable r =
            wait == 0 ? inbox.poll() : inbox.poll(Math.min(wait, POLL_NANOS), TimeUnit.NANOSECONDS);
        if (r != null) {
          r.run();
        }
        // Due timers run after each event, not only once the inbox is empty: a stream of adverts
        // for other instances must not hold back a takeover or this router's own adverts.
        runDue(now());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("VRRP event loop failed: {}", e.toString(), e);
    } finally {
      stopped.countDown();
    }
  }

  /** The earliest timer: a router's, a gratuitous ARP, a script run or the next poll. */
  private long nextDeadline() {
    long next = nextPoll;
    for (RunningInstance in : instances.all()) {
      next = Math.min(next, in.router.deadline());
      next = Math.min(next, in.garpDue);
      next = Math.min(next, in.garpRefreshDue);
    }
    for (ScriptRun s : tracking().scriptRuns()) {
      if (!s.inFlight) {
        next = Math.min(next, s.due);
      }
    }
    return next;
  }

  /** Runs every timer due at {@code now}. */
  private void runDue(long now) {
    for (RunningInstance in : instances.all()) {
      if (in.router.deadline() <= now) {
        perform(in.router.timer(now), false);
      }
      if (in.garpDue <= now) {
        in.garpDue = NEVER;
        addresses().announce(in, in.cfg.garpMasterRepeat());
      }
      if (in.garpRefreshDue <= now) {
        addresses().announce(in, config.globals().garpMasterRefreshRepeat());
        in.garpRefreshDue = in.cfg.garpMasterRefresh().map(d -> now() + d.toNanos()).orElse(NEVER);
      }
    }
    for (ScriptRun s : List.copyOf(tracking().scriptRuns())) {
      if (!s.inFlight && s.due <= now) {
        runScript(s);
      }
    }
    if (nextPoll <= now) {
      nextPoll = now + POLL_NANOS;
      pollAll(now);
    }
  }

  /**
   * Does what the state machines asked, in order.
   *
   * @param atExit notify_stop is waited for (keepalived gives it one second at shutdown)
   */
  private void perform(List<Action> actions, boolean atExit) {
    if (actions.isEmpty()) {
      return;
    }
    for (Action a : actions) {
      RunningInstance in = instances.of(a.router());
      if (a instanceof Action.SendAdvert s) {
        sockets.send(in, s.priority(), config);
      } else if (a instanceof Action.Transition t) {
        transition(in, t.from(), t.to(), atExit);
      }
    }
    for (RunningGroup g : instances.groups()) {
      State st = g.machine.state();
      if (st != g.last && st != State.INIT) {
        log.info("VRRP_Group({}) Entering {} STATE", g.cfg.name(), st);
        State from = g.last;
        g.last = st;
        g.shown = st;
        scripts.notify(g.cfg.scripts(), st, "GROUP", g.cfg.name(), 0, atExit && st == State.STOP);
        tell(new VrrpTransition(Instant.now(), true, g.cfg.name(), from, st, 0, Optional.empty()));
      }
    }
    for (Action a : actions) {
      refresh(instances.of(a.router()));
    }
  }

  private void transition(RunningInstance in, State from, State to, boolean atExit) {
    VrrpInstance c = in.cfg;
    Instant at = Instant.now(); // the event's time: the change, not the end of its actions
    log.info("({}) Entering {} STATE", c.name(), to);
    // Counters has a counter for every state.
    Objects.requireNonNull(in.counters.transitions.get(to)).incrementAndGet();
    if (to == State.MASTER) {
      c.allAddresses().forEach(a -> addresses().add(in, a));
      addresses().announce(in, c.garpMasterRepeat());
      in.garpDue = c.garpMasterDelay().isZero() ? NEVER : now() + c.garpMasterDelay().toNanos();
      in.garpRefreshDue = c.garpMasterRefresh().map(d -> now() + d.toNanos()).orElse(NEVER);
    } else if (from == State.MASTER) {
      in.garpDue = NEVER;
      in.garpRefreshDue = NEVER;
      c.allAddresses().forEach(a -> addresses().remove(in, a));
    }
    scripts.instanceChanged(
        c.name(), c.scripts(), from, to, in.router.effectivePriority(), removing, atExit);
    tell(
        new VrrpTransition(
            at, false, c.name(), from, to, in.router.effectivePriority(), in.router.master()));
  }

  private void tell(VrrpTransition t) {
    for (Consumer<VrrpTransition> l : listeners) {
      try {
        l.accept(t);
      } catch (RuntimeException e) {
        log.warn("a VRRP transition listener failed: {}", e.toString());
      }
    }
  }

  // --- receiving -------------------------------------------------------------------------------

  /** On a receive thread: a datagram goes to the event thread. */
  private void received(VrrpSocket s, VrrpSocket.Received r) {
    // Stamped here, not when the event thread gets to it: the master down timer counts from the
    // advert's arrival, however long the event thread was busy or waiting for a CPU.
    long at = now();
    inbox.add(() -> deliver(s, r, at));
  }

  private void deliver(VrrpSocket s, VrrpSocket.Received r, long receivedAt) {
    Optional<AdvertIntake.Accepted> accepted = intake.accept(s, r, receivedAt);
    if (accepted.isEmpty()) {
      return;
    }
    Advert a = accepted.get().advert();
    for (RunningInstance in : accepted.get().instances()) {
      in.counters.received.incrementAndGet();
      Optional<InetAddress> masterBefore = in.router.master();
      int prioBefore = in.router.masterPriority();
      List<Action> out = in.router.advert(receivedAt, a, r.source());
      perform(out, false);
      if (out.isEmpty()
          && (!masterBefore.equals(in.router.master())
              || prioBefore != in.router.masterPriority())) {
        refresh(in);
      }
    }
  }

  // --- tracking --------------------------------------------------------------------------------

  private void runScript(ScriptRun run) {
    run.inFlight = true;
    scripts.check(run.cfg).thenAccept(o -> inbox.add(() -> scriptDone(run, o)));
  }

  /** On the event thread: a vrrp_script run ended. */
  private void scriptDone(ScriptRun run, ScriptOutcome o) {
    run.inFlight = false;
    if (!tracking().current(run)) {
      return; // a reload removed or replaced the script while it ran
    }
    boolean ok = o.ran() && o.exitCode() == 0 && !o.timedOut();
    if (run.status.record(ok)) {
      log.info("VRRP_Script({}) {}", run.cfg.name(), ok ? "succeeded" : "failed");
      pollAll(now());
    }
    run.due = now() + run.cfg.interval().toNanos();
  }

  /** A poll cycle: every instance's tracking, each interface read once. */
  private void pollAll(long now) {
    tracking().newCycle();
    for (RunningInstance in : instances.all()) {
      pollTracking(in, now);
    }
  }

  /** Recomputes an instance's fault and effective priority from everything it tracks. */
  private void pollTracking(RunningInstance in, long now) {
    Tracking.Tracked t = tracking().evaluate(in.cfg, config);
    t.link().ifPresent(l -> in.link = l);
    int before = in.router.effectivePriority();
    List<Action> out =
        new ArrayList<>(in.router.priority(now, Priority.effective(in.cfg.priority(), t.change())));
    out.addAll(in.router.fault(now, t.fault()));
    perform(out, false);
    if (out.isEmpty() && before != in.router.effectivePriority()) {
      refresh(in);
    }
  }

  // --- status and stop -------------------------------------------------------------------------

  /** Publishes one instance's view (on the event thread, after it changed). */
  private void refresh(RunningInstance in) {
    in.refresh(config.groupOf(in.cfg.name()).map(SyncGroup::name), originWall);
  }

  /** Every instance and group now, with live counters. */
  public VrrpSnapshot snapshot() {
    List<InstanceStatus> out = new ArrayList<>();
    for (RunningInstance in : instances.published()) {
      in.status().ifPresent(out::add);
    }
    List<GroupStatus> gs = new ArrayList<>();
    for (RunningGroup g : instances.publishedGroups()) {
      gs.add(new GroupStatus(g.cfg.name(), g.shown, g.cfg.members()));
    }
    return new VrrpSnapshot(out, gs, counters.packets(), counters.drops());
  }

  /** Every instance now ({@link #snapshot}'s instances). */
  public List<InstanceStatus> status() {
    return snapshot().instances();
  }

  /** What {@link #start} opened: the event thread runs only after it. */
  private AddressControl addresses() {
    return Objects.requireNonNull(addresses, "VRRP not started");
  }

  private Tracking tracking() {
    return Objects.requireNonNull(tracking, "VRRP not started");
  }

  /** Stops every instance: masters send priority 0 and drop their addresses, notify_stop runs. */
  @Override
  public void close() {
    if (!running) {
      scripts.close();
      return;
    }
    CountDownLatch done = new CountDownLatch(1);
    inbox.add(
        () -> {
          long now = now();
          for (RunningInstance in : instances.all()) {
            perform(in.router.stop(now), true);
          }
          running = false;
          done.countDown();
        });
    try {
      if (!done.await(5, TimeUnit.SECONDS)) {
        log.warn("VRRP did not stop within 5 s");
      }
      running = false;
      stopped.await(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sockets.close();
    if (addresses != null) {
      addresses.close();
    }
    if (tracking != null) {
      tracking.close();
    }
    scripts.close();
  }
}
