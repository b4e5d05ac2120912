package io.fairway.check.engine;

import io.fairway.check.CheckConfigException;
import io.fairway.check.VerdictListener;
import io.fairway.check.VerdictSnapshot;
import io.fairway.check.checker.Checker;
import io.fairway.check.checker.CheckerFactory;
import io.fairway.check.checker.NetworkCheckers;
import io.fairway.check.checker.TcpProbe;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.RealServerSpec;
import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.os.script.ScriptExecutor;
import io.fairway.os.script.ScriptRejectedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * The health-check engine: runs every checker of every real server and publishes verdicts to one
 * {@link VerdictListener}.
 *
 * <p>Network checks run on a few Netty event-loop threads (epoll where available), scripts on a
 * bounded pool; nothing uses a thread per check. The first run of each checker is spread over 1 s +
 * random(0..warmup) — with warmup defaulting to delay_loop, 10,000 servers are checked at an even
 * rate rather than all at once.
 *
 * <pre>{@code
 * try (CheckEngine engine = CheckEngine.builder().listener(applier).build()) {
 *     engine.start(virtualServers);   // throws CheckConfigException on bad input, before anything runs
 *     ...
 * }
 * }</pre>
 */
public final class CheckEngine implements AutoCloseable {
  /** How long {@link #shutdown()} waits for omega scripts. */
  public static final Duration OMEGA_WAIT = Duration.ofSeconds(10);

  private final VerdictListener listener;
  private final RandomGenerator random;
  private final ScriptExecutor scripts;
  private final @Nullable NetworkCheckers network;
  private final CheckerFactory factory;
  private final @Nullable CheckObserver observer;
  private final EngineClock scheduler;
  private final boolean injectedScheduler;
  private final List<VirtualServerState> states = new ArrayList<>();
  private final List<CheckerRunner> runners = new ArrayList<>();
  private boolean started;
  private boolean closed;

  private CheckEngine(Builder b) {
    this.listener = Objects.requireNonNull(b.listener, "listener");
    this.random = b.random != null ? b.random : RandomGenerator.getDefault();
    this.scripts = new ScriptExecutor(b.scriptThreads, 1024);
    this.injectedScheduler = b.scheduler != null;
    this.observer = b.observer;
    if (b.factory != null && b.scheduler != null) {
      this.network = null;
      this.factory = b.factory;
      this.scheduler = b.scheduler;
    } else {
      this.network = new NetworkCheckers(b.eventLoopThreads, scripts, b.tcpProbe);
      this.factory = b.factory != null ? b.factory : network;
      this.scheduler = b.scheduler != null ? b.scheduler : new ExecutorClock(network.group());
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Validates every checker, publishes the initial state of every virtual server and starts
   * checking.
   *
   * @throws CheckConfigException if any checker cannot work; nothing has started then
   * @throws IllegalStateException if already started
   */
  public synchronized void start(List<VirtualServerSpec> virtualServers) {
    start(virtualServers, null);
  }

  /**
   * Starts after a reload: like {@link #start(List)}, but a checker that checks the same thing (its
   * timing may differ) at the same place of a kept real server inherits the dynamic weight the
   * previous engine's checker last reported, as keepalived's migrate step carries it over. Without
   * it a {@code misc_dynamic} server would fall back to its configured weight until its script ran
   * again, a table change the operator never asked for.
   *
   * @param previous the engine this one replaces, already closed; {@code null} for a cold start
   */
  public synchronized void start(
      List<VirtualServerSpec> virtualServers, @Nullable CheckEngine previous) {
    if (started) {
      throw new IllegalStateException("already started");
    }
    requireUniqueNames(virtualServers);
    List<VirtualServerState> created = new ArrayList<>();
    List<Pending> pending = createCheckers(virtualServers, created);
    if (previous != null) {
      inheritWeights(created, previous);
    }
    for (Pending p : pending) {
      p.checker()
          .initial()
          .ifPresent(
              r -> {
                p.c().preset(r);
                p.rs().alive = p.rs().failedCheckers() == 0;
              });
    }
    started = true;
    states.addAll(created);
    try {
      states.forEach(VirtualServerState::init);
    } catch (RuntimeException e) {
      pending.forEach(p -> p.checker().close());
      throw e;
    }
    pending.forEach(this::run);
  }

  /** A checker made for a real server's checker state, not yet running. */
  private record Pending(
      VirtualServerState vs, RealServerState rs, CheckerState c, Checker checker) {}

  private static void requireUniqueNames(List<VirtualServerSpec> virtualServers) {
    var names = new HashSet<String>();
    for (VirtualServerSpec vs : virtualServers) {
      if (!names.add(vs.name())) {
        throw new CheckConfigException("duplicate virtual server " + vs.name());
      }
    }
  }

  /**
   * Makes every checker before any runs, so one that cannot work refuses the whole start: the ones
   * already made are closed then.
   */
  private List<Pending> createCheckers(
      List<VirtualServerSpec> virtualServers, List<VirtualServerState> created) {
    List<Pending> pending = new ArrayList<>();
    try {
      for (VirtualServerSpec vsSpec : virtualServers) {
        VirtualServerState vs = new VirtualServerState(vsSpec, listener, scripts);
        validateScripts(vsSpec);
        created.add(vs);
        for (RealServerState rs : vs.servers) {
          for (CheckerState c : rs.checkers) {
            Checker checker = factory.create(vsSpec, rs.spec, c.spec);
            pending.add(new Pending(vs, rs, c, checker));
          }
        }
      }
    } catch (RuntimeException e) {
      pending.forEach(p -> p.checker().close());
      throw e;
    }
    return pending;
  }

  private void run(Pending p) {
    // Real time: a checker's timers live on the event loop its I/O runs on, so nothing hops
    // threads.
    EngineClock s =
        !injectedScheduler && p.checker().eventLoop() != null
            ? new ExecutorClock(p.checker().eventLoop())
            : scheduler;
    CheckerRunner r = new CheckerRunner(p.vs(), p.rs(), p.c(), p.checker(), s, observer);
    runners.add(r);
    r.start(firstDelay(p.c().spec));
  }

  private static void inheritWeights(List<VirtualServerState> created, CheckEngine previous) {
    java.util.Map<String, CheckerState> old = new java.util.HashMap<>();
    List<VirtualServerState> before;
    synchronized (previous) {
      before = List.copyOf(previous.states);
    }
    for (VirtualServerState vs : before) {
      synchronized (vs) {
        for (RealServerState rs : vs.servers) {
          for (int i = 0; i < rs.checkers.size(); i++) {
            old.put(vs.spec.name() + '\0' + rs.spec.name() + '\0' + i, rs.checkers.get(i));
          }
        }
      }
    }
    for (VirtualServerState vs : created) {
      for (RealServerState rs : vs.servers) {
        for (int i = 0; i < rs.checkers.size(); i++) {
          CheckerState now = rs.checkers.get(i);
          CheckerState was = old.get(vs.spec.name() + '\0' + rs.spec.name() + '\0' + i);
          if (was != null && was.hasRun && now.spec.sameCheckAs(was.spec)) {
            now.weightDelta = was.weightDelta;
          }
        }
      }
    }
  }

  /** The scripts a virtual server runs besides its checkers, checked at load as theirs are. */
  private void validateScripts(VirtualServerSpec vs) {
    try {
      if (vs.quorumUp() != null) {
        scripts.validate(vs.quorumUp(), vs.name() + " quorum_up");
      }
      if (vs.quorumDown() != null) {
        scripts.validate(vs.quorumDown(), vs.name() + " quorum_down");
      }
      for (RealServerSpec rs : vs.realServers()) {
        if (rs.notifyUp() != null) {
          scripts.validate(rs.notifyUp(), vs.name() + " " + rs.name() + " notify_up");
        }
        if (rs.notifyDown() != null) {
          scripts.validate(rs.notifyDown(), vs.name() + " " + rs.name() + " notify_down");
        }
      }
    } catch (ScriptRejectedException e) {
      throw new CheckConfigException(e.reason());
    }
  }

  private Duration firstDelay(CheckSpec spec) {
    if (spec instanceof io.fairway.check.spec.FileCheckSpec) {
      // Read at load already; after that it is watched at its poll interval, no warmup spread.
      Duration loop = spec.timing().delayLoop();
      return loop.compareTo(Duration.ofSeconds(1)) < 0 ? loop : Duration.ofSeconds(1);
    }
    long warmup = spec.timing().warmup().toNanos();
    long spread = warmup <= 0 ? 0 : random.nextLong(warmup + 1);
    return CheckerRunner.BOOTSTRAP.plusNanos(spread);
  }

  /** The current verdicts, one entry per virtual server in configuration order. */
  public List<VerdictSnapshot> status() {
    List<VirtualServerState> copy;
    synchronized (this) {
      copy = List.copyOf(states);
    }
    return copy.stream().map(VirtualServerState::status).toList();
  }

  /**
   * Final stop at daemon exit: like {@link #close()}, but virtual servers with {@code omega} first
   * run notify_down for every alive server and quorum_down if quorum was up (keepalived's behaviour
   * at shutdown). Waits for those scripts up to {@link #OMEGA_WAIT}. Not for a reload that replaces
   * the engine: nothing went away then.
   */
  public synchronized void shutdown() {
    runners.forEach(CheckerRunner::close);
    runners.clear();
    List<java.util.concurrent.CompletableFuture<?>> scriptsDone = new ArrayList<>();
    states.forEach(vs -> scriptsDone.addAll(vs.shutdown()));
    try {
      java.util.concurrent.CompletableFuture.allOf(
              scriptsDone.toArray(java.util.concurrent.CompletableFuture[]::new))
          .get(OMEGA_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      // logged by the script executor; shutting down anyway
    }
    close();
  }

  /**
   * Stops every checker and releases threads and sockets, without running any script: this is also
   * what a reload that replaces the engine calls, and a reload must not announce every server as
   * down.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    runners.forEach(CheckerRunner::close);
    runners.clear();
    if (network != null) {
      network.close();
    }
    scripts.close();
  }

  /** Builds a {@link CheckEngine}. */
  public static final class Builder {
    private @Nullable VerdictListener listener;
    private @Nullable EngineClock scheduler;
    private @Nullable CheckerFactory factory;
    private @Nullable CheckObserver observer;
    private @Nullable RandomGenerator random;
    private int eventLoopThreads = 1;
    private int scriptThreads = 4;
    private TcpProbe tcpProbe = TcpProbe.CONNECT;

    private Builder() {}

    /** How TCP_CHECK probes (default {@link TcpProbe#CONNECT}, as keepalived). */
    public Builder tcpProbe(TcpProbe p) {
      this.tcpProbe = Objects.requireNonNull(p, "tcpProbe");
      return this;
    }

    /** Where verdicts go (required). */
    public Builder listener(VerdictListener l) {
      this.listener = l;
      return this;
    }

    /** Time source; defaults to real time on the event loop. */
    public Builder scheduler(EngineClock s) {
      this.scheduler = s;
      return this;
    }

    /** Replaces the real checkers (tests of the rules). */
    public Builder checkerFactory(CheckerFactory f) {
      this.factory = f;
      return this;
    }

    /** Told of every attempt's result and duration (metrics); none by default. */
    public Builder observer(CheckObserver o) {
      this.observer = o;
      return this;
    }

    /**
     * One more observer besides the one set so far (the daemon's last-attempt view next to the
     * metrics the command line set).
     */
    public Builder alsoObserver(CheckObserver o) {
      this.observer = observer == null ? o : CheckObserver.both(observer, o);
      return this;
    }

    /** Randomness for the warmup spread; fixed seeds make start order reproducible. */
    public Builder random(RandomGenerator r) {
      this.random = r;
      return this;
    }

    /** Event-loop threads for network checks (default 1: checks are I/O-bound and cheap). */
    public Builder eventLoopThreads(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("eventLoopThreads must be >= 1");
      }
      this.eventLoopThreads = n;
      return this;
    }

    /** Threads for MISC_CHECK and notify scripts (default 4). */
    public Builder scriptThreads(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("scriptThreads must be >= 1");
      }
      this.scriptThreads = n;
      return this;
    }

    public CheckEngine build() {
      return new CheckEngine(this);
    }
  }
}
