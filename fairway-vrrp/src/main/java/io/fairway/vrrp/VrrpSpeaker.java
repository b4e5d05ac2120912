package io.fairway.vrrp;

import io.fairway.check.script.ScriptExecutor;
import io.fairway.check.spec.ScriptSpec;
import io.fairway.config.model.AddressFamily;
import io.fairway.config.model.Addresses;
import io.fairway.config.model.Script;
import io.fairway.config.model.vrrp.Notify;
import io.fairway.config.model.vrrp.SyncGroup;
import io.fairway.config.model.vrrp.Track;
import io.fairway.config.model.vrrp.VirtualAddress;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.config.model.vrrp.VrrpInstance;
import io.fairway.config.model.vrrp.VrrpScript;
import io.fairway.config.model.vrrp.VrrpState;
import io.fairway.vrrp.io.Announcer;
import io.fairway.vrrp.io.Link;
import io.fairway.vrrp.io.VrrpSocket;
import io.fairway.vrrp.packet.Advert;
import io.fairway.vrrp.packet.AdvertCodec;
import io.fairway.vrrp.packet.MalformedAdvertException;
import io.fairway.vrrp.state.Action;
import io.fairway.vrrp.state.Priority;
import io.fairway.vrrp.state.Router;
import io.fairway.vrrp.state.ScriptStatus;
import io.fairway.vrrp.state.State;
import io.fairway.vrrp.view.DropKind;
import io.fairway.vrrp.view.GroupStatus;
import io.fairway.vrrp.view.InstanceStatus;
import io.fairway.vrrp.view.VrrpSnapshot;
import io.fairway.vrrp.view.VrrpTransition;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the VRRP instances of a configuration: one event thread owns every {@link Router} and does
 * all sends, address changes and notifications in the order the state machines ask; one receive
 * thread per (interface, family, group) socket, a poller for interfaces and track files, and the
 * script executor for vrrp_script and notify scripts post events to it.
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
  private static final long NEVER = Long.MAX_VALUE;

  private final Optional<String> scriptUser;
  private final ScriptExecutor scripts;
  private final boolean ownsScripts;
  private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
  private final Map<SocketKey, VrrpSocket> sockets = new ConcurrentHashMap<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private final EnumMap<DropKind, AtomicLong> errors = new EnumMap<>(DropKind.class);
  private final AtomicLong packets = new AtomicLong();
  private final List<Consumer<VrrpTransition>> listeners = new CopyOnWriteArrayList<>();
  private final long origin = System.nanoTime();
  private final Instant originWall = Instant.now();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AdvertSourceFilter sourceFilter = new AdvertSourceFilter();

  // --- owned by the event thread (set before it starts) ----------------------------------------
  private VrrpConfig config = VrrpConfig.empty();
  private final Map<String, Instance> instances = new LinkedHashMap<>();
  private final Map<Router, Instance> byRouter = new IdentityHashMap<>();
  private final Map<VrrpSocket, Map<Integer, List<Instance>>> byVrid = new IdentityHashMap<>();
  private final Map<String, GroupRuntime> groups = new LinkedHashMap<>();
  private final Map<String, ScriptRun> scriptRuns = new LinkedHashMap<>();
  private Map<String, Path> trackFilePaths = Map.of();
  private List<InetAddress> allVips = List.of();
  private long nextPoll;

  /** While a reload removes instances: their STOP notifies as keepalived's deletion does. */
  private boolean removing;

  // --- read by any thread ----------------------------------------------------------------------
  private volatile List<Instance> published = List.of();
  private volatile List<GroupRuntime> publishedGroups = List.of();
  private io.fairway.vrrp.io.Addresses netlink;
  private Announcer announcer;
  private io.fairway.vrrp.io.LinkWatch linkWatch;
  private volatile boolean running;
  private Thread loop;
  private final VrrpConfig initial;

  /** Where adverts of one family on one interface are sent and received. */
  private record SocketKey(String interfaceName, AddressFamily family, InetAddress group) {}

  /** An instance's counters: they survive a reload that keeps or changes the instance. */
  private static final class Counters {
    final AtomicLong sent = new AtomicLong();
    final AtomicLong received = new AtomicLong();
    final EnumMap<State, AtomicLong> transitions = new EnumMap<>(State.class);

    Counters() {
      for (State s : State.values()) {
        transitions.put(s, new AtomicLong());
      }
    }
  }

  private final class Instance {
    final VrrpInstance cfg;
    final Router router;
    final Counters counters;

    /** The addresses its adverts carry, as received adverts are compared with them. */
    final List<InetAddress> advertised;

    Link link;
    VrrpSocket socket;
    long garpDue = NEVER;
    long garpRefreshDue = NEVER;

    /** The last published view, counters left at zero (they are read live). */
    volatile InstanceStatus view;

    Instance(VrrpInstance cfg, Router router, Link link, Counters counters) {
      this.cfg = cfg;
      this.router = router;
      this.link = link;
      this.counters = counters;
      this.advertised = cfg.virtualAddresses().stream().map(VirtualAddress::address).toList();
    }

    InetAddress source() {
      return cfg.unicastSource()
          .orElseGet(
              () ->
                  cfg.family() == AddressFamily.INET
                      ? link.ipv4().orElse(null)
                      : link.ipv6LinkLocal().orElse(null));
    }
  }

  private static final class GroupRuntime {
    final SyncGroup cfg;
    final io.fairway.vrrp.state.SyncGroup machine;
    State last = State.INIT;
    volatile State shown = State.INIT;

    GroupRuntime(SyncGroup cfg, io.fairway.vrrp.state.SyncGroup machine) {
      this.cfg = cfg;
      this.machine = machine;
    }
  }

  /** One vrrp_script's runs; replaced (not reused) when a reload changes the script. */
  private static final class ScriptRun {
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

  /**
   * @param config the VRRP part of the configuration
   * @param scriptUser global_defs {@code script_user} (the user scripts run as by default)
   * @param scripts the executor for vrrp_script and notify scripts, or null for a private one
   */
  public VrrpSpeaker(VrrpConfig config, Optional<String> scriptUser, ScriptExecutor scripts) {
    this.initial = config;
    this.scriptUser = scriptUser;
    this.ownsScripts = scripts == null;
    this.scripts = scripts != null ? scripts : new ScriptExecutor(4, 256);
    for (DropKind k : DropKind.values()) {
      errors.put(k, new AtomicLong());
    }
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
    java.util.Objects.requireNonNull(l);
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
    Map<String, Link> links = check(initial, Set.of());
    Map<SocketKey, VrrpSocket> opened = openSockets(initial);
    netlink = io.fairway.vrrp.io.Addresses.open();
    announcer = Announcer.open();
    linkWatch = io.fairway.vrrp.io.LinkWatch.open();
    running = true;
    loop = new Thread(this::runLoop, "fairway-vrrp");
    loop.setDaemon(true);
    // The first apply runs before the loop starts, on this thread: nothing else runs yet.
    apply(initial, links, trackFilePaths);
    loop.start();
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
    for (Instance in : published) {
      in.cfg.allAddresses().forEach(a -> ours.add(a.address()));
    }
    Map<String, Link> links = check(next, ours);
    return new Prepared(next, links, openSockets(next), Map.copyOf(trackFiles));
  }

  /** A reload that fits the running system, ready to apply by difference ({@link VrrpDiff}). */
  public final class Prepared {
    private final VrrpConfig next;
    private final Map<String, Link> links;
    private final Map<SocketKey, VrrpSocket> opened;
    private final Map<String, Path> trackFiles;

    private Prepared(
        VrrpConfig next,
        Map<String, Link> links,
        Map<SocketKey, VrrpSocket> opened,
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
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IOException("applying the VRRP reload: " + e.getCause(), e.getCause());
      } catch (java.util.concurrent.TimeoutException e) {
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
      for (Map.Entry<SocketKey, VrrpSocket> e : opened.entrySet()) {
        sockets.remove(e.getKey(), e.getValue());
        e.getValue().close();
        e.getValue().release();
      }
    }
  }

  /**
   * The start-time checks alone (interfaces exist, virtual addresses are not on another interface),
   * for a reload that would start VRRP.
   *
   * @throws VrrpStartException one line per problem
   */
  public static void checkSystem(VrrpConfig c) throws VrrpStartException {
    check(c, Set.of());
  }

  /** The start-time checks, against the running system; one line per problem. */
  private static Map<String, Link> check(VrrpConfig c, Set<InetAddress> ours)
      throws VrrpStartException {
    List<String> problems = new ArrayList<>();
    Map<String, Link> links = new HashMap<>();
    for (VrrpInstance i : c.instances()) {
      Optional<Link> link = Link.read(i.interfaceName(), vipsOf(i));
      if (link.isEmpty()) {
        problems.add(
            i.location()
                + ": vrrp_instance "
                + i.name()
                + ": interface "
                + i.interfaceName()
                + " does not exist");
        continue;
      }
      links.put(i.name(), link.get());
      for (VirtualAddress a : i.allAddresses()) {
        String dev = a.deviceOr(i.interfaceName());
        if (Link.read(dev, List.of()).isEmpty()) {
          problems.add(
              a.location()
                  + ": vrrp_instance "
                  + i.name()
                  + ": interface "
                  + dev
                  + " of "
                  + a
                  + " does not exist");
          continue;
        }
        if (ours.contains(a.address())) {
          continue; // held by one of our instances: moves with the reload
        }
        Link.holderOtherThan(a.address(), dev)
            .ifPresent(
                other ->
                    problems.add(
                        a.location()
                            + ": vrrp_instance "
                            + i.name()
                            + ": "
                            + Addresses.format(a.address())
                            + " is already on interface "
                            + other));
      }
      for (Track t : i.trackInterfaces()) {
        if (Link.read(t.name(), List.of()).isEmpty()) {
          problems.add(
              i.location()
                  + ": vrrp_instance "
                  + i.name()
                  + ": track_interface "
                  + t.name()
                  + " does not exist");
        }
      }
      if (i.family() == AddressFamily.INET
          && link.get().ipv4().isEmpty()
          && i.unicastSource().isEmpty()) {
        problems.add(
            i.location()
                + ": vrrp_instance "
                + i.name()
                + ": interface "
                + i.interfaceName()
                + " has no IPv4 address to send adverts from");
      }
    }
    if (!problems.isEmpty()) {
      throw new VrrpStartException(problems);
    }
    return links;
  }

  private static SocketKey keyOf(VrrpConfig c, VrrpInstance i) {
    return new SocketKey(
        i.interfaceName(),
        i.family(),
        i.family() == AddressFamily.INET ? c.globals().mcastGroup4() : c.globals().mcastGroup6());
  }

  /** Opens the sockets {@code c} needs that are not open yet; on failure closes them again. */
  private Map<SocketKey, VrrpSocket> openSockets(VrrpConfig c) throws IOException {
    Map<SocketKey, VrrpSocket> opened = new LinkedHashMap<>();
    try {
      for (VrrpInstance i : c.instances()) {
        SocketKey k = keyOf(c, i);
        if (!sockets.containsKey(k) && !opened.containsKey(k)) {
          opened.put(
              k, VrrpSocket.open(k.interfaceName(), k.family() == AddressFamily.INET, k.group()));
        }
      }
    } catch (IOException e) {
      for (VrrpSocket s : opened.values()) {
        s.close();
        s.release();
      }
      throw e;
    }
    sockets.putAll(opened);
    return opened;
  }

  private void startReceivers(Map<SocketKey, VrrpSocket> opened) {
    for (Map.Entry<SocketKey, VrrpSocket> e : opened.entrySet()) {
      Thread t =
          new Thread(
              () -> receiveLoop(e.getValue()),
              "fairway-vrrp-rx-" + e.getKey().interfaceName() + "/" + e.getKey().family());
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  private static List<InetAddress> vipsOf(VrrpInstance i) {
    return i.allAddresses().stream().map(VirtualAddress::address).toList();
  }

  private long now() {
    return System.nanoTime() - origin;
  }

  private static Router.Params params(VrrpInstance i, Link link) {
    InetAddress source =
        i.unicastSource()
            .orElseGet(
                () ->
                    i.family() == AddressFamily.INET
                        ? link.ipv4().orElse(null)
                        : link.ipv6LinkLocal().orElse(null));
    return new Router.Params(
        i.name(),
        i.version(),
        i.priority(),
        (int) (i.advertInterval().toMillis() / 10),
        i.preempt(),
        i.preemptDelay().toNanos(),
        i.initialState() == VrrpState.MASTER,
        source);
  }

  // --- applying a configuration (the event thread) ---------------------------------------------

  private String apply(VrrpConfig next, Map<String, Link> links, Map<String, Path> trackFiles) {
    long now = now();
    VrrpDiff diff = VrrpDiff.of(config, next);
    Map<String, State> groupStates = new HashMap<>();
    groups.forEach((n, g) -> groupStates.put(n, g.last));
    // Groups are rebuilt over the new routers; none notifies while instances come and go.
    groups.clear();
    for (String name : diff.removed()) {
      Instance in = instances.get(name);
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
      byRouter.remove(in.router);
    }
    Map<String, Instance> kept = new HashMap<>(instances);
    instances.clear();
    byRouter.clear();
    List<Instance> started = new ArrayList<>();
    for (VrrpInstance ni : next.instances()) {
      Instance old = kept.get(ni.name());
      Instance in;
      if (old == null) {
        Link link = links.get(ni.name());
        in = new Instance(ni, new Router(params(ni, link)), link, new Counters());
        started.add(in);
      } else if (diff.unchanged().contains(ni.name())) {
        in = old;
      } else {
        Link link = links.getOrDefault(ni.name(), old.link);
        in = new Instance(ni, old.router.reconfigured(params(ni, link)), link, old.counters);
        in.garpDue = old.garpDue;
        in.garpRefreshDue = old.garpRefreshDue;
        log.info(
            "({}) changed by the reload: {}; state {} kept",
            ni.name(),
            String.join(", ", diff.changed().get(ni.name())),
            in.router.state());
        if (in.router.state() == State.MASTER) {
          moveAddresses(old, in);
        }
      }
      in.socket = sockets.get(keyOf(next, ni));
      instances.put(ni.name(), in);
      byRouter.put(in.router, in);
    }
    config = next;
    trackFilePaths = trackFiles;
    allVips = next.instances().stream().flatMap(i -> vipsOf(i).stream()).toList();
    byVrid.clear();
    for (Instance in : instances.values()) {
      byVrid
          .computeIfAbsent(in.socket, s -> new HashMap<>())
          .computeIfAbsent(in.cfg.virtualRouterId(), v -> new ArrayList<>())
          .add(in);
    }
    for (Instance in : instances.values()) {
      in.router.leaveGroup();
    }
    for (SyncGroup g : next.syncGroups()) {
      List<Router> members = g.members().stream().map(m -> instances.get(m).router).toList();
      GroupRuntime gr = new GroupRuntime(g, new io.fairway.vrrp.state.SyncGroup(g.name(), members));
      gr.last = groupStates.getOrDefault(g.name(), State.INIT);
      gr.shown = gr.last;
      groups.put(g.name(), gr);
    }
    reconcileScripts(next, now);
    closeUnusedSockets();
    for (Instance in : started) {
      // As keepalived at startup: addresses a previous run left behind go (we are not master).
      for (VirtualAddress a : in.cfg.allAddresses()) {
        removeQuietly(in, a);
      }
    }
    cycleLinks.clear();
    linkWatch.forget();
    for (Instance in : instances.values()) {
      pollTracking(in, now);
    }
    for (Instance in : started) {
      perform(in.router.start(now), false);
    }
    published = List.copyOf(instances.values());
    publishedGroups = List.copyOf(groups.values());
    instances.values().forEach(this::refresh);
    String summary = diff.summary();
    if (!diff.isEmpty() || !started.isEmpty()) {
      log.info("VRRP: {}", summary);
    }
    return summary;
  }

  /** A master whose addresses changed: the ones that went are removed, new ones added. */
  private void moveAddresses(Instance old, Instance in) {
    Set<VirtualAddress> before = new HashSet<>(old.cfg.allAddresses());
    Set<VirtualAddress> after = new HashSet<>(in.cfg.allAddresses());
    for (VirtualAddress a : old.cfg.allAddresses()) {
      if (!after.contains(a)) {
        removeQuietly(old, a);
      }
    }
    boolean addedAny = false;
    for (VirtualAddress a : in.cfg.allAddresses()) {
      if (!before.contains(a)) {
        addQuietly(in, a);
        addedAny = true;
      }
    }
    if (addedAny) {
      announce(in, in.cfg.garpMasterRepeat());
    }
  }

  private void reconcileScripts(VrrpConfig next, long now) {
    Map<String, ScriptRun> old = new HashMap<>(scriptRuns);
    scriptRuns.clear();
    for (VrrpScript s : next.scripts()) {
      ScriptRun was = old.get(s.name());
      if (was != null && was.cfg.equals(s)) {
        scriptRuns.put(s.name(), was);
        continue;
      }
      ScriptStatus st = new ScriptStatus(s.rise(), s.fall(), s.initFail());
      // keepalived keeps a reloaded script's result: the verdict carries, the counts restart.
      if (was != null && was.status.ok().isPresent()) {
        st.record(was.status.ok().get());
      }
      scriptRuns.put(s.name(), new ScriptRun(s, st, now));
    }
  }

  private void closeUnusedSockets() {
    Set<VrrpSocket> used = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    for (Instance in : instances.values()) {
      used.add(in.socket);
    }
    sockets
        .values()
        .removeIf(
            s -> {
              if (used.contains(s)) {
                return false;
              }
              s.close(); // its receive thread releases the descriptor
              return true;
            });
  }

  // --- the event thread ------------------------------------------------------------------------

  private void runLoop() {
    try {
      while (running) {
        long now = now();
        long next = nextPoll;
        for (Instance in : instances.values()) {
          next = Math.min(next, in.router.deadline());
          next = Math.min(next, in.garpDue);
          next = Math.min(next, in.garpRefreshDue);
        }
        for (ScriptRun s : scriptRuns.values()) {
          if (!s.inFlight) {
            next = Math.min(next, s.due);
          }
        }
        long wait = Math.max(0, next - now);
        Runnable r =
            wait == 0 ? inbox.poll() : inbox.poll(Math.min(wait, POLL_NANOS), TimeUnit.NANOSECONDS);
        if (r != null) {
          r.run();
        }
        // Due timers run after each event, not only once the inbox is empty: a stream of adverts
        // for other instances must not hold back a takeover or this router's own adverts.
        now = now();
        for (Instance in : instances.values()) {
          if (in.router.deadline() <= now) {
            perform(in.router.timer(now), false);
          }
          if (in.garpDue <= now) {
            in.garpDue = NEVER;
            announce(in, in.cfg.garpMasterRepeat());
          }
          if (in.garpRefreshDue <= now) {
            announce(in, config.globals().garpMasterRefreshRepeat());
            in.garpRefreshDue =
                in.cfg.garpMasterRefresh().map(d -> now() + d.toNanos()).orElse(NEVER);
          }
        }
        for (ScriptRun s : List.copyOf(scriptRuns.values())) {
          if (!s.inFlight && s.due <= now) {
            runScript(s);
          }
        }
        if (nextPoll <= now) {
          nextPoll = now + POLL_NANOS;
          cycleLinks.clear();
          for (Instance in : instances.values()) {
            pollTracking(in, now);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("VRRP event loop failed: {}", e.toString(), e);
    } finally {
      stopped.countDown();
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
      Instance in = instanceOf(a.router());
      if (a instanceof Action.SendAdvert s) {
        send(in, s.priority());
      } else if (a instanceof Action.Transition t) {
        transition(in, t.from(), t.to(), atExit);
      }
    }
    for (GroupRuntime g : groups.values()) {
      State st = g.machine.state();
      if (st != g.last && st != State.INIT) {
        log.info("VRRP_Group({}) Entering {} STATE", g.cfg.name(), st);
        State from = g.last;
        g.last = st;
        g.shown = st;
        notifyScripts(g.cfg.scripts(), st, "GROUP", g.cfg.name(), 0, atExit && st == State.STOP);
        tell(new VrrpTransition(Instant.now(), true, g.cfg.name(), from, st, 0, Optional.empty()));
      }
    }
    for (Action a : actions) {
      refresh(instanceOf(a.router()));
    }
  }

  private Instance instanceOf(Router r) {
    Instance in = byRouter.get(r);
    if (in == null) {
      throw new IllegalStateException("unknown router " + r.name());
    }
    return in;
  }

  private void send(Instance in, int priority) {
    VrrpInstance c = in.cfg;
    InetAddress src = in.source();
    if (src == null) {
      count(DropKind.NO_SOURCE);
      return;
    }
    Advert ad =
        new Advert(
            c.version(),
            c.virtualRouterId(),
            priority,
            (int) (c.advertInterval().toMillis() / 10),
            in.advertised,
            c.authPass());
    List<InetAddress> to =
        c.unicast()
            ? c.unicastPeers()
            : List.of(
                c.family() == AddressFamily.INET
                    ? config.globals().mcastGroup4()
                    : config.globals().mcastGroup6());
    for (InetAddress dst : to) {
      try {
        in.socket.send(AdvertCodec.encode(ad, src, dst), src, dst);
        in.counters.sent.incrementAndGet();
      } catch (IOException e) {
        count(DropKind.SEND);
        log.warn("({}) {}", c.name(), e.getMessage());
      }
    }
  }

  private void transition(Instance in, State from, State to, boolean atExit) {
    VrrpInstance c = in.cfg;
    Instant at = Instant.now(); // the event's time: the change, not the end of its actions
    log.info("({}) Entering {} STATE", c.name(), to);
    in.counters.transitions.get(to).incrementAndGet();
    if (to == State.MASTER) {
      for (VirtualAddress a : c.allAddresses()) {
        addQuietly(in, a);
      }
      announce(in, c.garpMasterRepeat());
      in.garpDue = c.garpMasterDelay().isZero() ? NEVER : now() + c.garpMasterDelay().toNanos();
      in.garpRefreshDue = c.garpMasterRefresh().map(d -> now() + d.toNanos()).orElse(NEVER);
    } else if (from == State.MASTER) {
      in.garpDue = NEVER;
      in.garpRefreshDue = NEVER;
      for (VirtualAddress a : c.allAddresses()) {
        removeQuietly(in, a);
      }
    }
    if (to == State.STOP && removing) {
      // keepalived 2.2.7's clear_diff_vrrp: an instance the reload deleted is notified DELETED,
      // sent as FAULT without notify_deleted (not implemented here), and nothing if it was in
      // FAULT already. send_instance_notifies picks the state's own script while the state is
      // still DELETED (none), so only the generic `notify` runs, with FAULT; notify_fault and
      // notify_stop do not.
      if (from != State.FAULT) {
        Notify generic =
            new Notify(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                c.scripts().any());
        notifyScripts(
            generic, State.FAULT, "INSTANCE", c.name(), in.router.effectivePriority(), false);
      }
    } else if (to != State.INIT) {
      notifyScripts(
          c.scripts(),
          to,
          "INSTANCE",
          c.name(),
          in.router.effectivePriority(),
          atExit && to == State.STOP);
    }
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

  private int ifindex(Instance in, VirtualAddress a) throws IOException {
    String dev = a.deviceOr(in.cfg.interfaceName());
    if (dev.equals(in.link.name())) {
      return in.link.index();
    }
    return Link.read(dev, List.of())
        .map(Link::index)
        .orElseThrow(() -> new IOException("interface " + dev + " does not exist"));
  }

  private void addQuietly(Instance in, VirtualAddress a) {
    try {
      netlink.add(a, ifindex(in, a));
    } catch (IOException e) {
      count(DropKind.ADDRESS);
      log.warn("({}) {}", in.cfg.name(), e.getMessage());
    }
  }

  private void removeQuietly(Instance in, VirtualAddress a) {
    try {
      netlink.remove(a, ifindex(in, a));
    } catch (IOException e) {
      count(DropKind.ADDRESS);
      log.warn("({}) {}", in.cfg.name(), e.getMessage());
    }
  }

  private void announce(Instance in, int times) {
    for (int n = 0; n < times; n++) {
      for (VirtualAddress a : in.cfg.allAddresses()) {
        try {
          Link l =
              a.device().isEmpty()
                  ? in.link
                  : Link.read(a.device().get(), List.of()).orElse(in.link);
          announcer.announce(l, a.address());
        } catch (IOException e) {
          count(DropKind.ANNOUNCE);
          log.debug("({}) {}", in.cfg.name(), e.getMessage());
        }
      }
    }
  }

  /** keepalived's order: the state's own script, then {@code notify TYPE NAME STATE PRIORITY}. */
  private void notifyScripts(
      Notify n, State st, String type, String name, int priority, boolean wait) {
    Optional<Script> own =
        switch (st) {
          case MASTER -> n.master();
          case BACKUP -> n.backup();
          case FAULT -> n.fault();
          case STOP -> n.stop();
          default -> Optional.empty();
        };
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    own.ifPresent(s -> runs.add(scripts.notify(spec(s, List.of()), type + " " + name)));
    n.any()
        .ifPresent(
            s ->
                runs.add(
                    scripts.notify(
                        spec(s, List.of(type, name, st.notifyName(), Integer.toString(priority))),
                        type + " " + name)));
    if (wait) {
      // keepalived gives notify_stop one second at shutdown.
      for (var f : runs) {
        try {
          f.get(1, TimeUnit.SECONDS);
        } catch (Exception e) {
          log.debug("notify at stop: {}", e.toString());
        }
      }
    }
  }

  private ScriptSpec spec(Script s, List<String> extra) {
    List<String> argv = new ArrayList<>(s.argv());
    argv.addAll(extra);
    return new ScriptSpec(
        argv,
        s.user().or(() -> scriptUser.map(u -> u.split(" ")[0])).orElse(null),
        s.group().orElse(null));
  }

  // --- receiving -------------------------------------------------------------------------------

  private void receiveLoop(VrrpSocket s) {
    long kernelDrops = 0;
    try {
      while (running && !s.isClosed()) {
        VrrpSocket.Received r;
        try {
          r = s.receive();
          long d = s.kernelDrops();
          errors.get(DropKind.SOCKET_OVERFLOW).addAndGet((d - kernelDrops) & 0xffffffffL);
          kernelDrops = d;
        } catch (MalformedAdvertException e) {
          packets.incrementAndGet();
          count(DropKind.of(e.kind()));
          continue;
        } catch (IOException e) {
          count(DropKind.RECEIVE);
          log.warn("{}", e.getMessage());
          continue;
        }
        if (r != null) {
          packets.incrementAndGet();
          // Stamped here, not when the event thread gets to it: the master down timer counts from
          // the advert's arrival, however long the event thread was busy or waiting for a CPU.
          long at = now();
          inbox.add(() -> deliver(s, r, at));
        }
      }
    } finally {
      s.release();
    }
  }

  private void deliver(VrrpSocket s, VrrpSocket.Received r, long receivedAt) {
    if (r.ttl() != 255) {
      count(DropKind.TTL);
      return;
    }
    InetAddress dst =
        r.destination() != null
            ? r.destination()
            : s.ipv4() ? config.globals().mcastGroup4() : config.globals().mcastGroup6();
    Advert a;
    try {
      a = AdvertCodec.decode(r.data(), r.payloadOffset(), r.payloadLength(), r.source(), dst);
    } catch (MalformedAdvertException e) {
      count(DropKind.of(e.kind()));
      return;
    }
    Map<Integer, List<Instance>> onSocket = byVrid.get(s);
    List<Instance> candidates = onSocket == null ? null : onSocket.get(a.vrid());
    if (candidates == null) {
      return; // another router id on this link: not ours
    }
    Optional<DropKind> badSource =
        sourceFilter.check(
            r.source(),
            candidates.get(0).cfg.interfaceName(),
            candidates.stream().map(Instance::source).toList(),
            receivedAt);
    if (badSource.isPresent()) {
      count(badSource.get());
      return;
    }
    long now = receivedAt;
    for (Instance in : candidates) {
      VrrpInstance c = in.cfg;
      if (r.source().equals(in.source())) {
        continue; // our own advert
      }
      if (a.version() != c.version()) {
        count(DropKind.VERSION_MISMATCH);
        continue;
      }
      if (!a.authPass().equals(c.authPass())) {
        count(DropKind.AUTH);
        continue;
      }
      if (c.version() == 2 && a.intervalCentis() * 10L != c.advertInterval().toMillis()) {
        count(DropKind.INTERVAL_MISMATCH);
        continue;
      }
      if (!config.globals().skipCheckAdvAddr() && !a.addresses().equals(in.advertised)) {
        count(DropKind.ADDRESSES);
        continue;
      }
      in.counters.received.incrementAndGet();
      Optional<InetAddress> masterBefore = in.router.master();
      int prioBefore = in.router.masterPriority();
      List<Action> out = in.router.advert(now, a, r.source());
      perform(out, false);
      if (out.isEmpty()
          && (!masterBefore.equals(in.router.master())
              || prioBefore != in.router.masterPriority())) {
        refresh(in);
      }
    }
  }

  private void count(DropKind kind) {
    errors.get(kind).incrementAndGet();
  }

  // --- tracking --------------------------------------------------------------------------------

  private void runScript(ScriptRun run) {
    VrrpScript s = run.cfg;
    run.inFlight = true;
    ScriptSpec spec =
        new ScriptSpec(
            s.script().argv(),
            s.script().user().or(() -> scriptUser.map(u -> u.split(" ")[0])).orElse(null),
            s.script().group().orElse(null));
    scripts
        .run(spec, s.timeout())
        .thenAccept(
            o ->
                inbox.add(
                    () -> {
                      run.inFlight = false;
                      if (scriptRuns.get(s.name()) != run) {
                        return; // a reload removed or replaced the script while it ran
                      }
                      boolean ok = o.ran() && o.exitCode() == 0 && !o.timedOut();
                      if (run.status.record(ok)) {
                        log.info("VRRP_Script({}) {}", s.name(), ok ? "succeeded" : "failed");
                        long t = now();
                        cycleLinks.clear();
                        for (Instance in : instances.values()) {
                          pollTracking(in, t);
                        }
                      }
                      run.due = now() + s.interval().toNanos();
                    }));
  }

  /**
   * Interfaces read in this poll cycle: reading one asks the kernel for every interface's
   * addresses, so 100 instances on one interface read it once, not 100 times.
   */
  private final Map<String, Optional<Link>> cycleLinks = new HashMap<>();

  private Optional<Link> link(String name) {
    return cycleLinks.computeIfAbsent(name, n -> linkWatch.get(n, allVips, now()));
  }

  /** Recomputes an instance's fault and effective priority from everything it tracks. */
  private void pollTracking(Instance in, long now) {
    VrrpInstance c = in.cfg;
    boolean fault = false;
    int sum = 0;
    Optional<Link> link = link(c.interfaceName());
    if (link.isEmpty() || !link.get().up()) {
      fault = true;
    } else {
      in.link = link.get();
    }
    for (Track t : c.trackInterfaces()) {
      boolean up = link(t.name()).map(Link::up).orElse(false);
      int w = t.weight().orElse(0);
      fault |= Priority.faults(w, t.reverse(), up);
      sum += Priority.contribution(w, t.reverse(), up);
    }
    List<Track> scriptTracks = new ArrayList<>(c.trackScripts());
    config.groupOf(c.name()).ifPresent(g -> scriptTracks.addAll(g.trackScripts()));
    for (Track t : scriptTracks) {
      Optional<VrrpScript> s = config.script(t.name());
      ScriptRun run = scriptRuns.get(t.name());
      if (s.isEmpty() || run == null || run.status.ok().isEmpty()) {
        continue;
      }
      int w = t.weight().orElse(s.get().weight());
      boolean rev = t.weight().isPresent() ? t.reverse() : s.get().reverse();
      boolean ok = run.status.ok().get();
      fault |= Priority.faults(w, rev, ok);
      sum += Priority.contribution(w, rev, ok);
    }
    for (Track t : c.trackFiles()) {
      long value = readTrackFile(t.name());
      int w = t.weight().orElse(1);
      // keepalived: value x weight is added; with weight 0 a non-zero value is a fault.
      if (w == 0) {
        fault |= (value != 0) != t.reverse();
      } else {
        sum += (int) Math.max(-254, Math.min(254, value * w * (t.reverse() ? -1 : 1)));
      }
    }
    int before = in.router.effectivePriority();
    List<Action> out =
        new ArrayList<>(in.router.priority(now, Priority.effective(c.priority(), sum)));
    out.addAll(in.router.fault(now, fault));
    perform(out, false);
    if (out.isEmpty() && before != in.router.effectivePriority()) {
      refresh(in);
    }
  }

  private long readTrackFile(String name) {
    Path p = trackFilePaths.get(name);
    if (p == null) {
      return 0;
    }
    try {
      String s = Files.readString(p).trim();
      return s.isEmpty() ? 0 : Long.parseLong(s.split("\\s+")[0]);
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
  }

  // --- status and stop -------------------------------------------------------------------------

  /** Publishes one instance's view (on the event thread, after it changed). */
  private void refresh(Instance in) {
    Router r = in.router;
    VrrpInstance c = in.cfg;
    in.view =
        new InstanceStatus(
            c.name(),
            c.interfaceName(),
            c.virtualRouterId(),
            c.version(),
            r.state(),
            r.effectivePriority(),
            c.priority(),
            r.master(),
            r.masterPriority(),
            originWall.plusNanos(r.since()),
            vipsOf(c),
            config.groupOf(c.name()).map(SyncGroup::name),
            0,
            0,
            Map.of());
  }

  /** Every instance and group now, with live counters. */
  public VrrpSnapshot snapshot() {
    List<InstanceStatus> out = new ArrayList<>();
    for (Instance in : published) {
      InstanceStatus v = in.view;
      if (v == null) {
        continue;
      }
      EnumMap<State, Long> t = new EnumMap<>(State.class);
      in.counters.transitions.forEach((s, n) -> t.put(s, n.get()));
      out.add(
          new InstanceStatus(
              v.name(),
              v.interfaceName(),
              v.virtualRouterId(),
              v.version(),
              v.state(),
              v.priority(),
              v.basePriority(),
              v.master(),
              v.masterPriority(),
              v.since(),
              v.virtualAddresses(),
              v.syncGroup(),
              in.counters.sent.get(),
              in.counters.received.get(),
              t));
    }
    List<GroupStatus> gs = new ArrayList<>();
    for (GroupRuntime g : publishedGroups) {
      gs.add(new GroupStatus(g.cfg.name(), g.shown, g.cfg.members()));
    }
    EnumMap<DropKind, Long> e = new EnumMap<>(DropKind.class);
    errors.forEach((k, v) -> e.put(k, v.get()));
    return new VrrpSnapshot(out, gs, packets.get(), e);
  }

  /** Every instance now ({@link #snapshot}'s instances). */
  public List<InstanceStatus> status() {
    return snapshot().instances();
  }

  /** Stops every instance: masters send priority 0 and drop their addresses, notify_stop runs. */
  @Override
  public void close() {
    if (!running) {
      if (ownsScripts) {
        scripts.close();
      }
      return;
    }
    CountDownLatch done = new CountDownLatch(1);
    inbox.add(
        () -> {
          long now = now();
          for (Instance in : instances.values()) {
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
    sockets.values().forEach(VrrpSocket::close);
    for (Thread t : threads) {
      try {
        t.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (netlink != null) {
      netlink.close();
    }
    if (announcer != null) {
      announcer.close();
    }
    if (linkWatch != null) {
      linkWatch.close();
    }
    if (ownsScripts) {
      scripts.close();
    }
  }
}
