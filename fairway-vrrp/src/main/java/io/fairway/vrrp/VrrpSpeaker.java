package io.fairway.vrrp;

import io.fairway.check.script.ScriptExecutor;
import io.fairway.check.spec.ScriptSpec;
import io.fairway.config.model.Addresses;
import io.fairway.config.model.AddressFamily;
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
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the VRRP instances of a configuration: one event thread owns every {@link Router} and
 * does all sends, address changes and notifications in the order the state machines ask; one
 * receive thread per (interface, family) socket, a poller for interfaces and track files, and
 * the script executor for vrrp_script and notify scripts post events to it.
 */
public final class VrrpSpeaker implements Closeable {
  private static final Logger log = LoggerFactory.getLogger(VrrpSpeaker.class);
  private static final long POLL_NANOS = 200_000_000L;

  private final VrrpConfig config;
  private final Optional<String> scriptUser;
  private final ScriptExecutor scripts;
  private final boolean ownsScripts;
  private final LinkedBlockingQueue<Runnable> inbox = new LinkedBlockingQueue<>();
  private final List<Instance> instances = new ArrayList<>();
  private final Map<String, VrrpSocket> sockets = new LinkedHashMap<>();
  private final List<Thread> threads = new ArrayList<>();
  private final Map<String, ScriptStatus> scriptStatus = new HashMap<>();
  private final List<GroupRuntime> groups = new ArrayList<>();
  private final Map<MalformedAdvertException.Kind, AtomicLong> malformed =
      new EnumMap<>(MalformedAdvertException.Kind.class);
  private final Map<String, AtomicLong> dropped = new java.util.concurrent.ConcurrentHashMap<>();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong received = new AtomicLong();
  private final long origin = System.nanoTime();
  private final Instant originWall = Instant.now();
  private io.fairway.vrrp.io.Addresses netlink;
  private Announcer announcer;
  private volatile boolean running;
  private volatile List<InstanceStatus> status = List.of();
  private Thread loop;
  private final CountDownLatch stopped = new CountDownLatch(1);

  /**
   * Told of each instance's state changes, on the event thread, in the order they happen, after
   * the change's addresses and notify scripts were started. Must not block for long (adverts wait).
   */
  @FunctionalInterface
  public interface StateListener {
    void changed(String instance, State from, State to);
  }

  private final List<StateListener> stateListeners =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Adds a listener; add it before {@link #start} to see the first transitions. */
  public void onStateChange(StateListener l) {
    stateListeners.add(java.util.Objects.requireNonNull(l));
  }

  /** One instance's state for {@code fairway status}. */
  public record InstanceStatus(String name, String state, int priority,
      Optional<InetAddress> master, Instant since, String interfaceName, int virtualRouterId) {}

  private final class Instance {
    final VrrpInstance cfg;
    final Router router;
    Link link;
    VrrpSocket socket;
    final Map<String, Boolean> interfacesUp = new HashMap<>();
    final Map<String, Long> trackFileValues = new HashMap<>();
    long garpDue = Long.MAX_VALUE;
    long garpRefreshDue = Long.MAX_VALUE;

    Instance(VrrpInstance cfg, Router router, Link link) {
      this.cfg = cfg;
      this.router = router;
      this.link = link;
    }

    InetAddress source() {
      return cfg.unicastSource().orElseGet(() -> cfg.family() == AddressFamily.INET
          ? link.ipv4().orElse(null) : link.ipv6LinkLocal().orElse(null));
    }
  }

  private final class GroupRuntime {
    final SyncGroup cfg;
    final io.fairway.vrrp.state.SyncGroup machine;
    State last = State.INIT;

    GroupRuntime(SyncGroup cfg, io.fairway.vrrp.state.SyncGroup machine) {
      this.cfg = cfg;
      this.machine = machine;
    }
  }

  /**
   * @param config the VRRP part of the configuration
   * @param scriptUser global_defs {@code script_user} (the user scripts run as by default)
   * @param scripts the executor for vrrp_script and notify scripts, or null for a private one
   */
  public VrrpSpeaker(VrrpConfig config, Optional<String> scriptUser, ScriptExecutor scripts) {
    this.config = config;
    this.scriptUser = scriptUser;
    this.ownsScripts = scripts == null;
    this.scripts = scripts != null ? scripts : new ScriptExecutor(4, 256);
    for (MalformedAdvertException.Kind k : MalformedAdvertException.Kind.values()) {
      malformed.put(k, new AtomicLong());
    }
  }

  /**
   * Checks the instances against the running system (interfaces exist, virtual addresses are not
   * on another interface), opens sockets and starts the state machines.
   *
   * @throws VrrpStartException one line per problem, naming the instance and its file:line
   */
  public void start() throws IOException {
    List<String> problems = new ArrayList<>();
    Map<String, Link> links = new HashMap<>();
    for (VrrpInstance i : config.instances()) {
      Optional<Link> link = Link.read(i.interfaceName(), vipsOf(i));
      if (link.isEmpty()) {
        problems.add(i.location() + ": vrrp_instance " + i.name() + ": interface "
            + i.interfaceName() + " does not exist");
        continue;
      }
      links.put(i.name(), link.get());
      for (VirtualAddress a : i.allAddresses()) {
        String dev = a.deviceOr(i.interfaceName());
        if (Link.read(dev, List.of()).isEmpty()) {
          problems.add(a.location() + ": vrrp_instance " + i.name() + ": interface " + dev
              + " of " + a + " does not exist");
          continue;
        }
        Link.holderOtherThan(a.address(), dev).ifPresent(other -> problems.add(a.location()
            + ": vrrp_instance " + i.name() + ": " + Addresses.format(a.address())
            + " is already on interface " + other));
      }
      for (Track t : i.trackInterfaces()) {
        if (Link.read(t.name(), List.of()).isEmpty()) {
          problems.add(i.location() + ": vrrp_instance " + i.name() + ": track_interface "
              + t.name() + " does not exist");
        }
      }
      if (i.family() == AddressFamily.INET && link.get().ipv4().isEmpty()
          && i.unicastSource().isEmpty()) {
        problems.add(i.location() + ": vrrp_instance " + i.name() + ": interface "
            + i.interfaceName() + " has no IPv4 address to send adverts from");
      }
    }
    if (!problems.isEmpty()) {
      throw new VrrpStartException(problems);
    }
    netlink = io.fairway.vrrp.io.Addresses.open();
    announcer = Announcer.open();
    for (VrrpScript s : config.scripts()) {
      scriptStatus.put(s.name(), new ScriptStatus(s.rise(), s.fall(), s.initFail()));
    }
    Map<String, Router> routers = new HashMap<>();
    for (VrrpInstance i : config.instances()) {
      Link link = links.get(i.name());
      InetAddress source = i.unicastSource().orElseGet(() -> i.family() == AddressFamily.INET
          ? link.ipv4().orElse(null) : link.ipv6LinkLocal().orElse(null));
      Router r = new Router(new Router.Params(i.name(), i.version(), i.priority(),
          (int) (i.advertInterval().toMillis() / 10), i.preempt(), i.preemptDelay().toNanos(),
          i.initialState() == VrrpState.MASTER, source));
      Instance inst = new Instance(i, r, link);
      instances.add(inst);
      byRouter.put(r, inst);
      routers.put(i.name(), r);
      String key = i.interfaceName() + "/" + i.family();
      VrrpSocket s = sockets.get(key);
      if (s == null) {
        s = VrrpSocket.open(i.interfaceName(), i.family() == AddressFamily.INET,
            i.family() == AddressFamily.INET ? config.globals().mcastGroup4()
                : config.globals().mcastGroup6());
        sockets.put(key, s);
      }
      inst.socket = s;
      // As keepalived at startup: addresses a previous run left behind go (we are not master).
      for (VirtualAddress a : i.allAddresses()) {
        removeQuietly(inst, a);
      }
    }
    for (SyncGroup g : config.syncGroups()) {
      List<Router> members = g.members().stream().map(routers::get).toList();
      groups.add(new GroupRuntime(g, new io.fairway.vrrp.state.SyncGroup(g.name(), members)));
    }
    running = true;
    loop = new Thread(this::runLoop, "fairway-vrrp");
    loop.setDaemon(true);
    for (Map.Entry<String, VrrpSocket> e : sockets.entrySet()) {
      Thread t = new Thread(() -> receiveLoop(e.getValue()), "fairway-vrrp-rx-" + e.getKey());
      t.setDaemon(true);
      threads.add(t);
    }
    loop.start();
    threads.forEach(Thread::start);
    allVips = config.instances().stream().flatMap(i -> vipsOf(i).stream()).toList();
    inbox.add(() -> {
      long now = now();
      cycleLinks.clear();
      for (Instance in : instances) {
        pollTracking(in, now, true);
      }
      for (Instance in : instances) {
        perform(in.router.start(now));
      }
      for (VrrpScript s : config.scripts()) {
        scheduleScript(s, now);
      }
    });
  }

  private static List<InetAddress> vipsOf(VrrpInstance i) {
    return i.allAddresses().stream().map(VirtualAddress::address).toList();
  }

  private long now() {
    return System.nanoTime() - origin;
  }

  // --- the event thread ------------------------------------------------------------------------

  private final List<long[]> scriptDue = new ArrayList<>();
  private long nextPoll;

  private void runLoop() {
    try {
      while (running) {
        long now = now();
        long next = nextPoll;
        for (Instance in : instances) {
          next = Math.min(next, in.router.deadline());
          next = Math.min(next, in.garpDue);
          next = Math.min(next, in.garpRefreshDue);
        }
        for (long[] d : scriptDue) {
          next = Math.min(next, d[1]);
        }
        long wait = Math.max(0, next - now);
        Runnable r = inbox.poll(Math.min(wait, POLL_NANOS), TimeUnit.NANOSECONDS);
        if (r != null) {
          r.run();
          continue;
        }
        now = now();
        for (Instance in : instances) {
          if (in.router.deadline() <= now) {
            perform(in.router.timer(now));
          }
          if (in.garpDue <= now) {
            in.garpDue = Long.MAX_VALUE;
            announce(in, in.cfg.garpMasterRepeat());
          }
          if (in.garpRefreshDue <= now) {
            announce(in, config.globals().garpMasterRefreshRepeat());
            in.garpRefreshDue = in.cfg.garpMasterRefresh().map(d -> now() + d.toNanos())
                .orElse(Long.MAX_VALUE);
          }
        }
        for (long[] d : List.copyOf(scriptDue)) {
          if (d[1] <= now) {
            scriptDue.remove(d);
            runScript(config.scripts().get((int) d[0]), now);
          }
        }
        if (nextPoll <= now) {
          nextPoll = now + POLL_NANOS;
          cycleLinks.clear();
          for (Instance in : instances) {
            pollTracking(in, now, false);
          }
          publish();
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

  private void perform(List<Action> actions) {
    for (Action a : actions) {
      Instance in = instanceOf(a.router());
      if (a instanceof Action.SendAdvert s) {
        send(in, s.priority());
      } else if (a instanceof Action.Transition t) {
        transition(in, t.from(), t.to());
      }
    }
    for (GroupRuntime g : groups) {
      State st = g.machine.state();
      if (st != g.last && st != State.INIT) {
        log.info("VRRP_Group({}) Entering {} STATE", g.cfg.name(), st);
        g.last = st;
        notifyScripts(g.cfg.scripts(), st, "GROUP", g.cfg.name(), 0, st == State.STOP);
      }
    }
    publish();
  }

  private final Map<Router, Instance> byRouter = new java.util.IdentityHashMap<>();

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
      count("no source address");
      return;
    }
    Advert ad = new Advert(c.version(), c.virtualRouterId(), priority,
        (int) (c.advertInterval().toMillis() / 10),
        c.virtualAddresses().stream().map(VirtualAddress::address).toList(), c.authPass());
    List<InetAddress> to = c.unicast() ? c.unicastPeers()
        : List.of(c.family() == AddressFamily.INET ? config.globals().mcastGroup4()
            : config.globals().mcastGroup6());
    for (InetAddress dst : to) {
      try {
        in.socket.send(AdvertCodec.encode(ad, src, dst), src, dst);
        sent.incrementAndGet();
      } catch (IOException e) {
        count("send");
        log.warn("({}) {}", c.name(), e.getMessage());
      }
    }
  }

  private void transition(Instance in, State from, State to) {
    VrrpInstance c = in.cfg;
    log.info("({}) Entering {} STATE", c.name(), to);
    if (to == State.MASTER) {
      for (VirtualAddress a : c.allAddresses()) {
        try {
          netlink.add(a, ifindex(in, a));
        } catch (IOException e) {
          count("address");
          log.warn("({}) {}", c.name(), e.getMessage());
        }
      }
      announce(in, c.garpMasterRepeat());
      in.garpDue = c.garpMasterDelay().isZero() ? Long.MAX_VALUE
          : now() + c.garpMasterDelay().toNanos();
      in.garpRefreshDue = c.garpMasterRefresh().map(d -> now() + d.toNanos())
          .orElse(Long.MAX_VALUE);
    } else if (from == State.MASTER) {
      in.garpDue = Long.MAX_VALUE;
      in.garpRefreshDue = Long.MAX_VALUE;
      for (VirtualAddress a : c.allAddresses()) {
        removeQuietly(in, a);
      }
    }
    if (to != State.INIT) {
      notifyScripts(c.scripts(), to, "INSTANCE", c.name(), in.router.effectivePriority(),
          to == State.STOP);
    }
    for (StateListener l : stateListeners) {
      try {
        l.changed(c.name(), from, to);
      } catch (RuntimeException e) {
        log.warn("({}) state listener failed: {}", c.name(), e.toString());
      }
    }
  }

  private int ifindex(Instance in, VirtualAddress a) throws IOException {
    String dev = a.deviceOr(in.cfg.interfaceName());
    if (dev.equals(in.link.name())) {
      return in.link.index();
    }
    return Link.read(dev, List.of()).map(Link::index)
        .orElseThrow(() -> new IOException("interface " + dev + " does not exist"));
  }

  private void removeQuietly(Instance in, VirtualAddress a) {
    try {
      netlink.remove(a, ifindex(in, a));
    } catch (IOException e) {
      count("address");
      log.warn("({}) {}", in.cfg.name(), e.getMessage());
    }
  }

  private void announce(Instance in, int times) {
    for (int n = 0; n < times; n++) {
      for (VirtualAddress a : in.cfg.allAddresses()) {
        try {
          Link l = a.device().isEmpty() ? in.link
              : Link.read(a.device().get(), List.of()).orElse(in.link);
          announcer.announce(l, a.address());
        } catch (IOException e) {
          count("announce");
          log.debug("({}) {}", in.cfg.name(), e.getMessage());
        }
      }
    }
  }

  /** keepalived's order: the state's own script, then {@code notify TYPE NAME STATE PRIORITY}. */
  private void notifyScripts(Notify n, State st, String type, String name, int priority,
      boolean wait) {
    Optional<Script> own = switch (st) {
      case MASTER -> n.master();
      case BACKUP -> n.backup();
      case FAULT -> n.fault();
      case STOP -> n.stop();
      default -> Optional.empty();
    };
    List<java.util.concurrent.CompletableFuture<Void>> runs = new ArrayList<>();
    own.ifPresent(s -> runs.add(scripts.notify(spec(s, List.of()), type + " " + name)));
    n.any().ifPresent(s -> runs.add(scripts.notify(spec(s, List.of(type, name, st.notifyName(),
        Integer.toString(priority))), type + " " + name)));
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
    return new ScriptSpec(argv, s.user().or(() -> scriptUser.map(u -> u.split(" ")[0]))
        .orElse(null), s.group().orElse(null));
  }

  // --- receiving -------------------------------------------------------------------------------

  private void receiveLoop(VrrpSocket s) {
    try {
      while (running) {
        VrrpSocket.Received r;
        try {
          r = s.receive();
        } catch (MalformedAdvertException e) {
          malformed.get(e.kind()).incrementAndGet();
          continue;
        } catch (IOException e) {
          count("receive");
          log.warn("{}", e.getMessage());
          continue;
        }
        if (r != null) {
          inbox.add(() -> deliver(s, r));
        }
      }
    } finally {
      s.release();
    }
  }

  private void deliver(VrrpSocket s, VrrpSocket.Received r) {
    received.incrementAndGet();
    if (r.ttl() != 255) {
      count("ttl");
      return;
    }
    InetAddress dst = r.destination() != null ? r.destination()
        : s.ipv4() ? config.globals().mcastGroup4() : config.globals().mcastGroup6();
    Advert a;
    try {
      a = AdvertCodec.decode(r.data(), r.payloadOffset(), r.payloadLength(), r.source(), dst);
    } catch (MalformedAdvertException e) {
      malformed.get(e.kind()).incrementAndGet();
      return;
    }
    long now = now();
    for (Instance in : instances) {
      VrrpInstance c = in.cfg;
      if (in.socket != s || c.virtualRouterId() != a.vrid()) {
        continue;
      }
      if (r.source().equals(in.source())) {
        continue; // our own advert
      }
      if (a.version() != c.version()) {
        count("version");
        continue;
      }
      if (!a.authPass().equals(c.authPass())) {
        count("auth");
        continue;
      }
      if (c.version() == 2 && a.intervalCentis() * 10L != c.advertInterval().toMillis()) {
        count("interval");
        continue;
      }
      if (!config.globals().skipCheckAdvAddr() && !a.addresses().equals(
          c.virtualAddresses().stream().map(VirtualAddress::address).toList())) {
        count("addresses");
        continue;
      }
      perform(in.router.advert(now, a, r.source()));
    }
  }

  private void count(String kind) {
    dropped.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
  }

  // --- tracking --------------------------------------------------------------------------------

  private void scheduleScript(VrrpScript s, long now) {
    scriptDue.add(new long[] {config.scripts().indexOf(s), now});
  }

  private void runScript(VrrpScript s, long now) {
    ScriptSpec spec = new ScriptSpec(s.script().argv(), s.script().user()
        .or(() -> scriptUser.map(u -> u.split(" ")[0])).orElse(null),
        s.script().group().orElse(null));
    scripts.run(spec, s.timeout()).thenAccept(o -> inbox.add(() -> {
      boolean ok = o.ran() && o.exitCode() == 0 && !o.timedOut();
      ScriptStatus st = scriptStatus.get(s.name());
      if (st.record(ok)) {
        log.info("VRRP_Script({}) {}", s.name(), ok ? "succeeded" : "failed");
        long t = now();
        cycleLinks.clear();
        for (Instance in : instances) {
          pollTracking(in, t, false);
        }
      }
      scriptDue.add(new long[] {config.scripts().indexOf(s), now() + s.interval().toNanos()});
    }));
  }

  /**
   * Interfaces read in this poll cycle: reading one asks the kernel for every interface's
   * addresses, so 100 instances on one interface read it once, not 100 times.
   */
  private final Map<String, Optional<Link>> cycleLinks = new HashMap<>();

  private Optional<Link> link(String name) {
    return cycleLinks.computeIfAbsent(name, n -> Link.read(n, allVips));
  }

  private List<InetAddress> allVips = List.of();

  /** Recomputes an instance's fault and effective priority from everything it tracks. */
  private void pollTracking(Instance in, long now, boolean initial) {
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
      ScriptStatus st = scriptStatus.get(t.name());
      if (s.isEmpty() || st == null || st.ok().isEmpty()) {
        continue;
      }
      int w = t.weight().orElse(s.get().weight());
      boolean rev = t.weight().isPresent() ? t.reverse() : s.get().reverse();
      boolean ok = st.ok().get();
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
    List<Action> out = new ArrayList<>(in.router.priority(now, Priority.effective(c.priority(),
        sum)));
    out.addAll(in.router.fault(now, fault));
    perform(out);
  }

  private final Map<String, Path> trackFilePaths = new HashMap<>();

  /** Set by the daemon: the top-level track_file paths by name. */
  public void trackFiles(Map<String, Path> paths) {
    trackFilePaths.putAll(paths);
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

  private void publish() {
    List<InstanceStatus> out = new ArrayList<>();
    for (Instance in : instances) {
      Router r = in.router;
      out.add(new InstanceStatus(in.cfg.name(), r.state().name(), r.effectivePriority(),
          r.master(), originWall.plusNanos(r.since()), in.cfg.interfaceName(),
          in.cfg.virtualRouterId()));
    }
    status = List.copyOf(out);
  }

  /** A snapshot of every instance. */
  public List<InstanceStatus> status() {
    return status;
  }

  /** Counters: adverts sent and received, and drops by kind. */
  public Map<String, Long> counters() {
    Map<String, Long> m = new LinkedHashMap<>();
    m.put("sent", sent.get());
    m.put("received", received.get());
    malformed.forEach((k, v) -> m.put("malformed_" + k.name().toLowerCase(java.util.Locale.ROOT),
        v.get()));
    dropped.forEach((k, v) -> m.put("dropped_" + k.replace(' ', '_'), v.get()));
    return m;
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
    inbox.add(() -> {
      long now = now();
      for (Instance in : instances) {
        perform(in.router.stop(now));
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
    if (ownsScripts) {
      scripts.close();
    }
  }
}
