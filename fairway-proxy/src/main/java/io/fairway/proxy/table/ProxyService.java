package io.fairway.proxy.table;

import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.SchedDest;
import io.fairway.director.sched.SchedService;
import io.fairway.director.sched.Schedulers;
import io.fairway.plan.MemberPlan;
import io.fairway.plan.Selection;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.ServiceTimeouts;
import io.fairway.proxy.accesslog.AccessLog;
import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Ramp;
import io.fairway.table.Service;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One virtual service of the userspace table: its destinations and how a new connection or request
 * chooses among them. Its listener is the plane's ({@code io.fairway.proxy.plane}), which builds
 * the frontends; the service knows no socket but those of the connections it counts.
 *
 * <p>Two kinds of algorithm sit behind it. The kernel's schedulers (rr, wlc, sh, mh...) run in the
 * director library's model of an IPVS service ({@code io.fairway.director.sched}), which also owns
 * thresholds, persistence templates and overflow to the sorry server, so they decide exactly as the
 * kernel would. The Varnish directors (round_robin, shard...) run over the same servers with the
 * table's own thresholds, persistence and overflow.
 *
 * <p>Writers (the table, on the apply thread) change the members under the table's lock and publish
 * an immutable {@link Pool}; event loops read the pool once per connection without locking. A
 * {@link ProxyBackend} lives as long as its destination, so a weight change or a reload keeps its
 * counters and its established connections.
 *
 * <p>Slow start runs in the algorithm itself: the apply layer hands each ramp over as a {@link
 * Ramp} ({@code ProxyTable.ramp}, kept by {@link ServiceRamps}) and writes the full weight; the
 * kernel model or the Varnish director then gives the server its growing fraction of new
 * connections (docs/schedulers.md).
 */
public final class ProxyService {

  /** What event loops read. Exactly one of {@code kernel} and {@code varnish} is set. */
  record Pool(
      List<ProxyBackend> servers,
      @Nullable ProxyBackend sorry,
      boolean sorryInTable,
      @Nullable SchedService kernel,
      Map<SchedDest, ProxyBackend> byKernelDest,
      @Nullable VarnishPicker varnish,
      int hashBalanceFactor) {}

  /** A request that asks a shard for no alt of its own: the shard's default applies. */
  public static final int NO_ALT = -1;

  /** The table's options as of its running plan ({@code lvs_timeouts}). */
  private volatile ProxyOptions options;

  private volatile Service service;
  private volatile ListenerSpec spec;

  /** This service's {@code access_log}s, {@link AccessLog#NONE} without. */
  private volatile AccessLog accessLog = AccessLog.NONE;

  private volatile ServiceTimeouts timeouts;
  private volatile @Nullable Pool pool;

  /** Destinations in table order; guarded by the table's lock. */
  private final Map<DestKey, ProxyBackend> members = new LinkedHashMap<>();

  /** The spec's sorry server while it is not a destination of the table. */
  private @Nullable ProxyBackend detachedSorry;

  private @Nullable SchedService kernel;
  private @Nullable VarnishPicker varnish;

  /**
   * The kernel model's servers as the table has them now, by their model object: a pick falls back
   * to it when the model chose a server the published pool does not map yet. The model publishes
   * its own list early when a ramp moves in the middle of a batch or a table's {@code hold}, so a
   * server added there can be picked before the pool that maps it is out. Written under the table's
   * lock, read by event loops.
   */
  private final Map<SchedDest, ProxyBackend> live = new ConcurrentHashMap<>();

  /** Inside {@link #beginBatch}: member changes wait for {@link #endBatch} to be published. */
  private boolean batching;

  private boolean changedInBatch;

  /** The slow starts handed over by the apply layer. */
  private final ServiceRamps ramps = new ServiceRamps();

  /** DirectorPersistence for the Varnish directors (the kernel model has its own templates). */
  final DirectorPersistence persistence = new DirectorPersistence();

  /**
   * Connections and requests waiting for a server under its {@code uthreshold} or {@code
   * max_conns}.
   */
  private final SlotQueue slots = new SlotQueue();

  /** The responses to requests no server could be chosen for (503): the proxy's own. */
  public final HttpStats http = new HttpStats();

  /** The address its listener is bound to, once it is ({@link ServiceTable#add}). */
  volatile @Nullable InetSocketAddress vip;

  /** Told what only the frontends can do: retime their established connections. */
  private final Frontends frontends;

  /** The event loops' side: picks from the published {@link #pool}. */
  private final ServicePicker picker;

  ProxyService(
      Service service,
      ListenerSpec spec,
      ProxyOptions options,
      ConnectionExpiry expiry,
      Frontends frontends) {
    this.service = service;
    this.spec = spec;
    this.options = options;
    this.timeouts = ServiceTimeouts.of(options, spec.proxy().timeouts());
    this.frontends = Objects.requireNonNull(frontends, "frontends");
    this.picker = new ServicePicker(this, expiry, slots, live);
    rebuildAlgorithm();
  }

  /** A service without frontends: the scheduling decision alone. */
  ProxyService(Service service, ListenerSpec spec, ProxyOptions options, ConnectionExpiry expiry) {
    this(service, spec, options, expiry, Frontends.NONE);
  }

  /** Whether the table can run this scheduler name. */
  static boolean known(String scheduler) {
    String s = scheduler.toLowerCase(Locale.ROOT);
    return Schedulers.isKnown(s) || Selection.defaults(s) instanceof Selection.Varnish;
  }

  /**
   * The plan's selection while the table service runs the plan's algorithm; the algorithm's
   * defaults when the table says another one (a change made behind the plan's back).
   */
  Selection selection() {
    String name = service.scheduler().toLowerCase(Locale.ROOT);
    Selection planned = spec.selection();
    return planned != null && planned.algorithm().equals(name) ? planned : Selection.defaults(name);
  }

  public Service service() {
    return service;
  }

  /** The address its listener is bound to; null until it is. */
  public @Nullable InetSocketAddress vip() {
    return vip;
  }

  public AccessLog accessLog() {
    return accessLog;
  }

  void setAccessLog(AccessLog log) {
    accessLog = log == null ? AccessLog.NONE : log;
  }

  public ListenerSpec spec() {
    return spec;
  }

  /** The timeouts as of the current spec and table options. */
  public ServiceTimeouts timeouts() {
    return timeouts;
  }

  /** The UDP flow timeout as of now: a flow takes it at each datagram, as IPVS does. */
  public long udpTimeoutNanos() {
    return options.udpTimeout().toNanos();
  }

  /** The table's options changed (a reload's {@code lvs_timeouts}): the timeouts follow. */
  void setOptions(ProxyOptions o) {
    options = o;
    retime(ServiceTimeouts.of(o, spec.proxy().timeouts()));
  }

  /**
   * New connections read the new timeouts at once; an established L4 connection is told of a
   * changed idle timeout, which its activity from then on gets (the L4 frontend's {@code
   * IdleWatch}, through {@link Frontends#retime}). HTTP connections and UDP flows read theirs at
   * each activity.
   */
  private void retime(ServiceTimeouts t) {
    ServiceTimeouts old = timeouts;
    timeouts = t;
    if (t.idle().equals(old.idle())) {
      return;
    }
    List<ProxyBackend> servers = all();
    if (detachedSorry != null) {
      servers.add(detachedSorry);
    }
    long idle = t.idle().toNanos();
    for (ProxyBackend rs : servers) {
      for (Channel ch : rs.established) {
        frontends.retime(ch, idle);
      }
    }
  }

  Pool pool() {
    return Objects.requireNonNull(pool, "the constructor publishes the first");
  }

  void setService(Service s) {
    Service old = service;
    service = s;
    if (!s.equals(old)) {
      if (old.timeout() != 0 && s.timeout() == 0) {
        persistence.clear();
      }
      rebuildAlgorithm();
    }
  }

  void setSpec(ListenerSpec s) {
    ListenerSpec old = spec;
    spec = s;
    retime(ServiceTimeouts.of(options, s.proxy().timeouts()));
    relimit();
    if (!Objects.equals(s.selection(), old.selection())
        || !Objects.equals(s.sorryServer(), old.sorryServer())) {
      rebuildAlgorithm();
    } else {
      changed();
    }
  }

  boolean hasDest(DestKey k) {
    return members.containsKey(k);
  }

  void addDest(Dest d) {
    ProxyBackend rs = new ProxyBackend(d, (int) options.inactiveExpiry().toSeconds());
    rs.limit(maxConns(d.key()));
    members.put(d.key(), rs);
    // The director's ramp is by name and may precede the member. The kernel model's needs its
    // Dest: a ramping server goes in quiesced, takes its ramp, then its weight, so not one
    // connection reaches it unramped.
    rampVarnish(rs);
    if (kernel != null && !isSorry(rs)) {
      if (ramps.current(d.key()) != null) {
        rs.kernelDest(kernel.add(spec(d.withWeight(0))));
        live.put(rs.kernelDest, rs);
        rampKernel(rs);
        kernel.edit(spec(d));
      } else {
        rs.kernelDest(kernel.add(spec(d)));
        live.put(rs.kernelDest, rs);
      }
    }
    changed();
  }

  /**
   * Starts, moves or ends ({@link Ramp#NONE}) a destination's slow start; it may not be here yet.
   */
  void ramp(DestKey k, Ramp r) {
    ramps.set(k, r);
    ProxyBackend rs = members.get(k);
    if (rs != null) {
      ServiceRamps.Times t = ramps.current(k);
      long now = System.nanoTime();
      long elapsed = t == null ? 0 : now - t.start();
      long nanos = t == null ? 0 : t.nanos();
      if (varnish != null && !isSorry(rs)) {
        varnish.ramp(rs, elapsed, nanos);
      }
      if (kernel != null && rs.kernelDest != null) {
        kernel.ramp(rs.kernelDest, elapsed, nanos);
      }
    }
  }

  /** A kernel-model server just (re)created takes its destination's running ramp, if any. */
  private void rampKernel(ProxyBackend rs) {
    ServiceRamps.Times t = kernel != null && rs.kernelDest != null ? ramps.current(rs.key) : null;
    if (t != null) {
      Objects.requireNonNull(kernel, "a ramp is looked up only with a kernel model")
          .ramp(
              Objects.requireNonNull(rs.kernelDest, "and with the server in it"),
              t.elapsed(System.nanoTime()),
              t.nanos());
    }
  }

  /** A Varnish director's member takes its destination's running ramp, if any (by name). */
  private void rampVarnish(ProxyBackend rs) {
    ServiceRamps.Times t = varnish != null && !isSorry(rs) ? ramps.current(rs.key) : null;
    if (t != null) {
      Objects.requireNonNull(varnish, "a ramp is looked up only with a director")
          .ramp(rs, t.elapsed(System.nanoTime()), t.nanos());
    }
  }

  /** A new spec may change members' {@code max_conns}: both models take it at once. */
  private void relimit() {
    for (ProxyBackend rs : members.values()) {
      int m = maxConns(rs.key);
      if (rs.maxConns() == m) {
        continue;
      }
      rs.limit(m);
      if (kernel != null && rs.kernelDest != null) {
        kernel.edit(spec(rs.dest()));
      }
    }
  }

  void setDest(Dest d) {
    ProxyBackend rs =
        Objects.requireNonNull(members.get(d.key()), "the table checked the destination is there");
    rs.update(d);
    if (kernel != null && !isSorry(rs)) {
      kernel.edit(spec(d));
    }
    changed();
  }

  ProxyBackend delDest(DestKey k) {
    ramps.forget(k);
    ProxyBackend rs =
        Objects.requireNonNull(members.remove(k), "the table checked the destination is there");
    rs.markRemoved();
    if (kernel != null && !isSorry(rs)) {
      kernel.remove(k.address(), k.port());
    }
    if (rs.kernelDest != null) {
      live.remove(rs.kernelDest);
    }
    changed();
    return rs;
  }

  /**
   * Starts a batch of member changes ({@link ServiceTable#inBatch}): each costs O(1) until {@link
   * #endBatch}, which publishes the pool (and hands the kernel model its changes) once. Until then
   * event loops schedule over the pool as it was. Nests into nothing: a batch under way goes on.
   */
  void beginBatch() {
    batching = true;
    if (kernel != null) {
      kernel.beginBatch();
    }
  }

  /** Ends the batch: one publication for all its changes. */
  void endBatch() {
    batching = false;
    if (kernel != null) {
      kernel.endBatch();
    }
    if (changedInBatch) {
      changedInBatch = false;
      republish();
    }
  }

  private void changed() {
    if (batching) {
      changedInBatch = true;
    } else {
      republish();
    }
  }

  List<ProxyBackend> all() {
    return new ArrayList<>(members.values());
  }

  private boolean isSorry(ProxyBackend rs) {
    InetSocketAddress s = spec.sorryServer();
    return s != null && rs.address.equals(s);
  }

  /** The kernel model's spec of a destination: the table's settings and the plan's max_conns. */
  private DestSpec spec(Dest d) {
    return KernelModels.spec(d, maxConns(d.key()));
  }

  /** The plan's {@code send_proxy} for a server: NONE when the plan does not know it. */
  public io.fairway.config.model.ProxyProtocol.Version sendProxy(ProxyBackend rs) {
    MemberPlan m = spec.members().get(rs.key);
    return m == null
        ? io.fairway.config.model.ProxyProtocol.Version.NONE
        : m.proxyProtocol().send();
  }

  /** The TLS contexts of this service's {@code real_server ... { tls { } }} blocks. */
  private final io.fairway.proxy.tls.BackendTlsContexts backendTls =
      new io.fairway.proxy.tls.BackendTlsContexts();

  /**
   * A TLS handler for a new connection to {@code rs} when the plan re-encrypts to it ({@code tls {
   * }} in its real_server), else null (plain TCP).
   *
   * @throws javax.net.ssl.SSLException its CA file cannot be used (changed since it was checked)
   */
  public io.netty.handler.ssl.@Nullable SslHandler backendTls(
      ProxyBackend rs, io.netty.buffer.ByteBufAllocator alloc) throws javax.net.ssl.SSLException {
    MemberPlan m = spec.members().get(rs.key);
    if (m == null || m.tls().isEmpty()) {
      return null;
    }
    return backendTls.handler(m.tls().get(), rs.address, alloc, m.http2());
  }

  /** Whether the plan re-encrypts to {@code rs} ({@code tls { }} in its real_server). */
  public boolean backendTlsConfigured(ProxyBackend rs) {
    MemberPlan m = spec.members().get(rs.key);
    return m != null && m.tls().isPresent();
  }

  /** The plan's {@code http2} for a server: HTTP/2 to it; false when the plan does not know it. */
  public boolean http2(ProxyBackend rs) {
    MemberPlan m = spec.members().get(rs.key);
    return m != null && m.http2();
  }

  /** The plan's {@code max_conns} for a destination: 0 (none) when the plan does not know it. */
  private int maxConns(DestKey k) {
    MemberPlan m = spec.members().get(k);
    return m == null ? 0 : m.maxConns();
  }

  /**
   * A new scheduler model for a changed scheduler, flags, persistence or sorry server. The kernel
   * model's counters start from zero (established connections continue and are still counted on the
   * table's own counters, which {@code list} reports).
   */
  private void rebuildAlgorithm() {
    Service s = service;
    Selection sel = selection();
    if (sel instanceof Selection.Varnish v) {
      kernel = null;
      live.clear();
      varnish = new VarnishPicker(v, varnish);
    } else {
      varnish = null;
      kernel = KernelModels.create(s, (Selection.Kernel) sel, spec.sorryServer());
      kernel.beginBatch(); // n adds, one scheduler update
      live.clear();
      for (ProxyBackend rs : members.values()) {
        rs.kernelDest(isSorry(rs) ? null : kernel.add(spec(rs.dest())));
        if (rs.kernelDest != null) {
          live.put(rs.kernelDest, rs);
        }
        rampKernel(rs);
      }
      if (!batching) {
        kernel.endBatch();
      }
    }
    if (varnish != null) {
      for (ProxyBackend rs : members.values()) {
        rampVarnish(rs);
      }
    }
    changed();
  }

  private void republish() {
    ListenerSpec sp = spec;
    InetSocketAddress sorryAddr = sp.sorryServer();
    List<ProxyBackend> real = new ArrayList<>(members.size());
    ProxyBackend sorry = null;
    for (ProxyBackend rs : members.values()) {
      if (sorryAddr != null && rs.address.equals(sorryAddr)) {
        sorry = rs;
      } else {
        real.add(rs);
      }
    }
    boolean inTable = sorry != null;
    if (sorry == null && sorryAddr != null) {
      if (detachedSorry == null || !detachedSorry.address.equals(sorryAddr)) {
        detachedSorry =
            new ProxyBackend(
                Dest.of(sorryAddr.getAddress(), sorryAddr.getPort(), 1),
                (int) options.inactiveExpiry().toSeconds());
      }
      sorry = detachedSorry;
    }
    // By identity: the kernel model's own destination objects.
    IdentityHashMap<SchedDest, ProxyBackend> byDest = new IdentityHashMap<>();
    if (kernel != null) {
      for (ProxyBackend rs : real) {
        byDest.put(rs.kernelDest, rs);
      }
      if (kernel.sorryServer() != null && sorry != null) {
        byDest.put(kernel.sorryServer(), sorry);
      }
    }
    if (varnish != null) {
      varnish.update(real, sp.members());
    }
    int factor = selection() instanceof Selection.Shard sh ? sh.hashBalanceFactor() : 0;
    pool = new Pool(List.copyOf(real), sorry, inTable, kernel, byDest, varnish, factor);
  }

  /**
   * Schedules a new connection or request, or returns {@code null} when there is no server.
   *
   * @param key the HTTP key, or {@code null} to select by client address
   * @param tried servers whose connect already failed for this client (empty the first time); they
   *     are not chosen again. A Varnish director is asked for {@code alt = tried.size()}, the
   *     seed's retry idiom ({@code alt=bereq.retries}): a retried key goes to its next ring
   *     neighbour, which {@code fairway pick --alt N} predicts. Otherwise (a kernel scheduler,
   *     which never retries, or an alternative that is unusable too) the first available in table
   *     order
   */
  public @Nullable Lease select(
      InetSocketAddress client, @Nullable String key, Set<ProxyBackend> tried) {
    return select(client, key, tried, NO_ALT);
  }

  /**
   * As {@link #select(InetSocketAddress, String, Set)}, for a request that asks a shard for {@code
   * askedAlt} ({@code alt_header}; {@link #NO_ALT}: the shard's own default). A retry then asks for
   * the alternative after it: {@code askedAlt + retries}.
   */
  public @Nullable Lease select(
      InetSocketAddress client, @Nullable String key, Set<ProxyBackend> tried, int askedAlt) {
    return picker.select(client, key, tried, askedAlt);
  }

  /**
   * Schedules a new TCP connection (L4) or HTTP request as {@link #select(InetSocketAddress,
   * String, Set, int)} does, or queues it for a slot: the decision both frontends make, here once
   * so that they cannot drift apart. They do only their protocol's part with the answer.
   *
   * <p>In this order: while others wait in the queue, a first try ({@code tried} empty) queues
   * behind them without selecting, so a slot that frees goes to whoever waited longest (oldest
   * first, as HAProxy's queue does); otherwise it selects. Finding no server, a first try waits in
   * the queue, for up to {@code wait}, if the servers are only full ({@link #atCapacity}); at each
   * turn it selects again and goes on waiting while they still are. Anything else is refused
   * ({@link Pick.None}).
   *
   * @param loop the caller's event loop: this is called on it and {@code waiter} called back on it
   * @param wait how long a queued one waits for a slot (the connect timeout, as HAProxy's {@code
   *     timeout queue} defaults to {@code timeout connect})
   * @param waiter told of its turn or its timeout, if the answer is {@link Pick.Queued}; never
   *     otherwise
   */
  public Pick schedule(
      InetSocketAddress client,
      @Nullable String key,
      Set<ProxyBackend> tried,
      int askedAlt,
      EventLoop loop,
      Duration wait,
      SlotWaiter waiter) {
    return picker.schedule(client, key, tried, askedAlt, loop, wait, waiter);
  }

  /** Where {@link #schedule} queues; package-private so that nothing else decides to wait. */
  SlotQueue slots() {
    return slots;
  }

  /**
   * Whether a pick that found no server found none only because servers that would take it are at
   * their {@code uthreshold} or {@code max_conns}: then a slot will free, and waiting for it beats
   * refusing. False when no server is there or every one is drained (weight 0), where nothing frees
   * by waiting.
   */
  boolean atCapacity() {
    return picker.atCapacity();
  }
}
