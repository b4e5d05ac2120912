package io.fairway.proxy.plane;

import io.fairway.config.model.TlsSettings;
import io.fairway.plan.Plan;
import io.fairway.plan.PlanTarget;
import io.fairway.plan.ServicePlan;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.Transport;
import io.fairway.proxy.accesslog.AccessLog;
import io.fairway.proxy.accesslog.AccessLogFiles;
import io.fairway.proxy.http2.H2Stats;
import io.fairway.proxy.proxyprotocol.ProxyProtocolStats;
import io.fairway.proxy.table.Drain;
import io.fairway.proxy.table.HttpStats;
import io.fairway.proxy.table.LimitStats;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.Mode;
import io.fairway.proxy.table.ProxyService;
import io.fairway.proxy.table.QueueStats;
import io.fairway.proxy.table.ServiceSnapshots;
import io.fairway.proxy.table.ServiceTable;
import io.fairway.proxy.tls.ServerTls;
import io.fairway.proxy.tls.TlsContexts;
import io.fairway.proxy.tls.TlsStats;
import io.fairway.proxy.udp.UdpRelay;
import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Protocol;
import io.fairway.table.Ramp;
import io.fairway.table.RampTarget;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import io.fairway.table.TableException.Reason;
import io.fairway.table.TableOp;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The userspace data plane behind the {@link Table} interface: every virtual service is a listening
 * socket on its own address and port, every destination a backend Fairway connects to itself. The
 * apply layer drives it exactly as it drives the kernel's IPVS.
 *
 * <p>What the table operations do here:
 *
 * <ul>
 *   <li>{@code addService} binds the listener (TCP relay or HTTP proxy, per the {@link
 *       ListenerSpec} the resolver gives for that service). A port already in use fails with {@link
 *       Reason#EXISTS} and a message naming the address.
 *   <li>{@code setService} changes the scheduler or persistence in place: the listener and every
 *       established connection stay.
 *   <li>{@code addDest}/{@code setDest} publish a new pool; new connections see it at once. Weight
 *       0 drains: established connections and HTTP keep-alive sessions continue, nothing new is
 *       scheduled there.
 *   <li>{@code delDest} closes the destination's established connections, unless {@link
 *       ProxyOptions#keepConnectionsOnRemove()} (the kernel's {@code expire_nodest_conn=0}).
 *   <li>{@code ramp} ({@link RampTarget}) starts a destination's slow start in the scheduler
 *       itself; the apply layer then writes its full weight instead of stepping it.
 *   <li>{@code list} reports live counters: active connections (HTTP: requests in flight), inactive
 *       ones that closed less than {@link ProxyOptions#inactiveExpiry()} ago, persistence
 *       templates.
 * </ul>
 *
 * <p>TCP and UDP address services can be served (UDP: a flow per client address, see {@link
 * UdpRelay}); firewall-mark and SCTP services are refused with {@link Reason#INVALID}, and so is
 * {@code lb_kind HTTP} over UDP. The forwarding method of a destination (NAT, DR, TUN) is kept for
 * read-back but makes no difference: everything is proxied, which is what lets {@code fairway run
 * --userspace} try a production configuration on a laptop.
 *
 * <p>The plane's part is the sockets and what runs on them: it binds each service's listener
 * ({@link Listeners}), builds each accepted connection's frontends ({@link ClientPipelines}) and
 * closes what the frontends hold when the table says so ({@link PlaneFrontends}). What the
 * operations mean for the services is the table model's ({@link ServiceTable}), which knows no
 * frontend.
 *
 * <p>Thread-safety: table operations are serialised on this object; connections are handled on
 * Netty event loops that read immutable snapshots. An operation holds this object's lock while it
 * waits for an event loop (a listener's bind or close), so nothing that runs on an event loop may
 * take that lock: it would wait for the operation that waits for it.
 */
public final class ProxyTable implements Table, PlanTarget, RampTarget {
  private static final Logger log = LoggerFactory.getLogger(ProxyTable.class);

  /** The options the table was made with. */
  private final ProxyOptions base;

  /** {@link #base} with the running plan's {@code lvs_timeouts} ({@link #apply}). */
  private volatile ProxyOptions options;

  private final Function<ServiceKey, ListenerSpec> specs;

  /** The specs of the running plan ({@link #apply}); consulted before {@link #specs}. */
  private volatile Map<ServiceKey, ListenerSpec> planned = Map.of();

  /** The event loops of every listener and connection (see {@link Listeners}). */
  private final EventLoopGroup ioGroup;

  private final ServiceTable services;
  private final Listeners listeners;
  private final ScheduledFuture<?> purger;
  private final ScheduledFuture<?> expirer;
  private final Drain drain = new Drain();

  /** The TLS contexts of the listeners that terminate TLS, and their handshake counters. */
  private final TlsContexts tls = new TlsContexts();

  private final H2Stats h2Stats = new H2Stats();

  /** The running plan's {@code access_log} writers. */
  private final AccessLogFiles accessLogs = AccessLogFiles.defaults();

  /** The access log of each service of the running plan ({@link #apply}); absent: none. */
  private Map<ServiceKey, AccessLog> plannedLogs = Map.of();

  /**
   * A table with its own event loops.
   *
   * @param options data-plane settings
   * @param specs the listener spec of each service (mode, key source, director parameters, sorry
   *     server), consulted when a service is added or set; {@code null} from it, or a {@code null}
   *     function, means a TCP relay with the service's scheduler
   * @throws IllegalStateException when {@code fairway.proxy.transport} names a transport that is
   *     not available here (or none Fairway knows)
   */
  public ProxyTable(ProxyOptions options, @Nullable Function<ServiceKey, ListenerSpec> specs) {
    this.base = Objects.requireNonNull(options, "options");
    this.options = options;
    this.specs = specs == null ? k -> null : specs;
    Transport.requireValid();
    this.ioGroup = Transport.group(options.ioThreads());
    this.services = new ServiceTable(options, new PlaneFrontends(this::options));
    this.listeners =
        new Listeners(
            ioGroup, this::options, new ClientPipelines(this::options, tls, h2Stats, drain));
    this.purger = ioGroup.scheduleAtFixedRate(this::purgeTemplates, 10, 10, TimeUnit.SECONDS);
    this.expirer =
        ioGroup.scheduleAtFixedRate(services::sweepExpired, 250, 250, TimeUnit.MILLISECONDS);
    log.info("userspace data plane started ({} transport)", Transport.name());
  }

  /** A table with default options where every service is a TCP relay. */
  public static ProxyTable tcpOnly() {
    return new ProxyTable(ProxyOptions.defaults(), null);
  }

  public TlsStats tlsStats() {
    return tls.stats();
  }

  /** The access log files are closed and opened again at their paths (logrotate, SIGUSR1). */
  public void reopenAccessLogs() {
    accessLogs.reopen();
  }

  /** Each open access log's written and dropped records. */
  public List<AccessLogFiles.Stat> accessLogStats() {
    return accessLogs.stats();
  }

  private AccessLog plannedLog(ServiceKey key) {
    return plannedLogs.getOrDefault(key, AccessLog.NONE);
  }

  private ListenerSpec specFor(ServiceKey key) {
    ListenerSpec s = planned.get(key);
    if (s == null) {
      s = specs.apply(key);
    }
    return s == null ? ListenerSpec.tcp() : s;
  }

  @Override
  public @Nullable String refusal(Plan plan) {
    for (ServicePlan sp : plan.services()) {
      for (Service s : sp.services()) {
        String why = unsupported(s, sp.http());
        if (why != null) {
          return sp.where() + ": virtual_server " + sp.name() + ": " + why;
        }
      }
    }
    // Built here, off the event loops: a certificate that cannot serve refuses the plan, and the
    // running contexts keep serving.
    for (ServicePlan sp : plan.services()) {
      try {
        tls.prepare(sp.proxy().tls(), sp.http());
      } catch (ServerTls.TlsException e) {
        return e.getMessage();
      }
    }
    String logs = accessLogs.refusal(plan);
    if (logs != null) {
      return logs;
    }
    // Last, as it is the one check that touches the system: every listener the plan adds must
    // be had, or the plan is refused before anything changes (a reload all or nothing).
    for (ServicePlan sp : plan.services()) {
      for (Service s : sp.services()) {
        Optional<String> busy = checkListen(s.key());
        if (busy.isPresent()) {
          return sp.where() + ": virtual_server " + sp.name() + ": " + busy.get();
        }
      }
    }
    return null;
  }

  /** Why this plane cannot serve the service of a plan, or null when it can. */
  private static @Nullable String unsupported(Service s, boolean http) {
    ServiceKey key = s.key();
    if (key.isFwmark() || key.protocol() == Protocol.SCTP) {
      return key + ": the userspace data plane serves TCP and UDP address services only";
    }
    if (key.protocol() == Protocol.UDP && http) {
      return "lb_kind HTTP needs protocol TCP";
    }
    if (!ServiceTable.knownScheduler(s.scheduler())) {
      return "unknown scheduler '" + s.scheduler() + "'";
    }
    return null;
  }

  /**
   * Runs a plan: each running service of it takes its new spec at once (director type and
   * parameters, key source, names, idents, weights, sorry server, mode); listeners, established
   * connections and the state of members that stay are kept. Services added later read it.
   */
  @Override
  public synchronized void apply(Plan plan) {
    ProxyOptions o = withLvsTimeouts(base, plan.timeouts());
    if (!o.equals(options)) {
      options = o;
      services.setOptions(o);
      log.info(
          "lvs_timeouts: idle timeout {} s, UDP flow timeout {} s (established connections and flows"
              + " from their next packet, as in IPVS)",
          o.idleTimeout().toSeconds(),
          o.udpTimeout().toSeconds());
    }
    Map<ServiceKey, ListenerSpec> next = new HashMap<>();
    plan.byKey().forEach((key, sp) -> next.put(key, ListenerSpec.of(sp, key)));
    planned = Map.copyOf(next);
    services
        .byKey()
        .forEach(
            (key, vs) -> {
              ListenerSpec fresh = next.get(key);
              if (services.respec(vs, fresh)) {
                log.info(
                    "{}: now {} {}",
                    key,
                    // Mode.TCP is the layer-4 relay, which also carries UDP services.
                    Objects.requireNonNull(fresh, "respec is false without a spec").mode()
                            == Mode.HTTP
                        ? "HTTP"
                        : "L4",
                    fresh.selection() == null ? "" : fresh.selection().describe());
              }
            });
    List<Map.Entry<TlsSettings, Boolean>> tlsInUse = new ArrayList<>();
    for (ProxyService vs : services.byKey().values()) {
      tlsInUse.add(Map.entry(vs.spec().proxy().tls(), vs.spec().mode() == Mode.HTTP));
    }
    next.values().forEach(sp -> tlsInUse.add(Map.entry(sp.proxy().tls(), sp.mode() == Mode.HTTP)));
    tls.retain(tlsInUse);
    plannedLogs = accessLogs.open(plan);
    services.setAccessLogs(this::plannedLog);
  }

  /**
   * {@code lvs_timeouts} on this plane: {@code tcp N} is the idle timeout of established
   * connections (L4, and an HTTP exchange or tunnel, unless its {@code proxy_timeouts} say
   * otherwise), {@code udp N} the lifetime of an idle UDP flow; {@code tcpfin} has no counterpart.
   * Those not given are the table's own.
   */
  static ProxyOptions withLvsTimeouts(ProxyOptions o, Plan.Timeouts t) {
    ProxyOptions.Builder b = o.toBuilder();
    if (t.tcp().compareTo(Duration.ZERO) > 0) {
      b.idleTimeout(t.tcp());
    }
    if (t.udp().compareTo(Duration.ZERO) > 0) {
      b.udpTimeout(t.udp());
    }
    return b.build();
  }

  /** The options in force: the table's own, with the running plan's {@code lvs_timeouts}. */
  public ProxyOptions options() {
    return options;
  }

  /**
   * Replaces the listener spec of a running service, e.g. after a reload changed its key source,
   * director parameters or mode. The listening socket and established connections stay; new
   * connections use the new spec.
   */
  public synchronized void updateSpec(ServiceKey key, ListenerSpec spec) throws TableException {
    services.updateSpec(key, spec);
  }

  /**
   * The address a service's listener is bound to: its own address and port, or the port the system
   * chose for a service on port 0. {@code null} for an unknown service.
   */
  public synchronized @Nullable InetSocketAddress boundAddress(ServiceKey key) {
    ProxyService vs = services.find(key);
    return vs == null ? null : vs.vip();
  }

  @Override
  public synchronized void addService(Service service) throws TableException {
    ServiceKey key = service.key();
    if (key.isFwmark() || key.protocol() == Protocol.SCTP) {
      throw new TableException(
          Reason.INVALID,
          key + ": the userspace data plane serves TCP and UDP address services only");
    }
    if (drain.draining()) {
      throw new TableException(Reason.OTHER, key + ": the data plane is stopping; no new listener");
    }
    ListenerSpec spec = specFor(key);
    if (key.protocol() == Protocol.UDP && spec.mode() == Mode.HTTP) {
      throw new TableException(Reason.INVALID, key + ": lb_kind HTTP needs protocol TCP");
    }
    if (services.contains(key)) {
      throw new TableException(Reason.EXISTS, key + ": service already exists");
    }
    ProxyService vs = services.create(service, spec, options, plannedLog(key));
    services.add(vs, listeners.bind(vs));
    log.info(
        "{}: listening on {} ({}, {})",
        key,
        vs.vip(),
        key.protocol() == Protocol.UDP ? "UDP flows" : vs.spec().mode(),
        service.scheduler());
  }

  /**
   * Whether the service's listener could be bound now, without changing anything: empty when it is
   * in this table already or the address is free, else the reason {@link #addService} would give.
   * For a reload that must be refused whole rather than half applied. (Another process may still
   * take the port between this check and the bind.)
   */
  public synchronized Optional<String> checkListen(ServiceKey key) {
    if (services.contains(key)
        || key.isFwmark()
        || key.protocol() == Protocol.SCTP
        || key.port() == 0) {
      return Optional.empty();
    }
    return Listeners.checkListen(key);
  }

  /**
   * Sends the records of a service's requests (or L4 connections) to {@code log}; {@code
   * AccessLog.NONE} stops them. Takes effect for requests that start from now on.
   */
  public synchronized void setAccessLog(ServiceKey key, AccessLog log) throws TableException {
    services.setAccessLog(key, log);
  }

  @Override
  public synchronized void setService(Service service) throws TableException {
    services.setService(service, this::specFor);
  }

  @Override
  public synchronized void delService(ServiceKey key) throws TableException {
    ProxyService vs = services.remove(key);
    listeners.close(key);
    services.drop(vs);
    log.info("{}: service deleted", key);
  }

  /**
   * Runs the operations one by one, with the kernel's result for each, but publishes each touched
   * service's pool once at the end instead of after every destination: installing n servers is
   * O(n), not O(n²). New connections see the table as it was until the batch is done, as they would
   * see a kernel that has not yet read the netlink batch.
   */
  @Override
  public synchronized List<TableException> apply(List<TableOp> ops) {
    return services.inBatch(() -> Table.super.apply(ops));
  }

  /**
   * Until {@link #release}, operations run (and are refused) one by one as in a batch, and the
   * pools they change are published once, at the release: the apply layer's verdicts that arrive
   * together (thousands of servers found dead in the first seconds would otherwise be as many
   * publications of the whole pool).
   */
  @Override
  public synchronized boolean hold() {
    services.hold();
    return true;
  }

  @Override
  public synchronized void release() {
    services.release();
  }

  @Override
  public synchronized void addDest(ServiceKey service, Dest dest) throws TableException {
    services.addDest(service, dest);
  }

  @Override
  public synchronized void setDest(ServiceKey service, Dest dest) throws TableException {
    services.setDest(service, dest);
  }

  /**
   * Slow start in the scheduler: the destination (now, or once it is added) takes the ramp's
   * fraction of its share; see {@link RampTarget}.
   */
  @Override
  public synchronized void ramp(ServiceKey service, DestKey dest, Ramp ramp) throws TableException {
    services.ramp(service, dest, ramp);
  }

  @Override
  public synchronized void delDest(ServiceKey service, DestKey dest) throws TableException {
    services.delDest(service, dest);
  }

  @Override
  public synchronized List<ServiceEntry> list() {
    return services.list();
  }

  @Override
  public synchronized void flush() throws TableException {
    for (ServiceKey k : new ArrayList<>(services.byKey().keySet())) {
      delService(k);
    }
  }

  /** Runs on an event loop, so it takes no lock (see {@link ServiceTable#purgeTemplates}). */
  void purgeTemplates() {
    services.purgeTemplates(System.nanoTime());
  }

  /**
   * Starts a soft stop: the TCP listeners close (new connections are refused by the kernel), HTTP
   * connections finish the exchange under way and close, L4 connections and tunnels run on. UDP
   * services keep their socket, so established flows keep working; the table's services stay
   * (read-back, counters) until they are deleted. Watch {@link #openConnections()}, then delete the
   * services or {@link #close()} the table.
   *
   * @return the client connections open when it started
   */
  public synchronized int stopAccepting() {
    listeners.closeTcp();
    int open = drain.start();
    log.info("soft stop: listeners closed, {} client connection(s) finishing", open);
    return open;
  }

  /** TCP client connections open now (HTTP and L4, tunnels included). */
  public int openConnections() {
    return drain.open();
  }

  /** Closes every listener and connection and stops the event loops. */
  @Override
  public void close() throws TableException {
    release();
    try {
      flush();
    } finally {
      purger.cancel(false);
      expirer.cancel(false);
      listeners.shutdownUdp();
      ioGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
      accessLogs.close(); // after the loops: the last requests' records are written
    }
  }

  /** The HTTP/2 plane's counters (h2 by ALPN and h2c). */
  public H2Stats h2Stats() {
    return h2Stats;
  }

  /**
   * The HTTP counters of every real server of every HTTP service, by service and destination; empty
   * for L4 services. For metrics; read without stopping the data plane.
   */
  public synchronized Map<ServiceKey, Map<DestKey, HttpStats.Snapshot>> httpStats() {
    return ServiceSnapshots.http(services.byKey());
  }

  /**
   * The HTTP counters of every HTTP service for the requests it chose no real server for (the
   * proxy's 503s), by service.
   */
  public synchronized Map<ServiceKey, HttpStats.Snapshot> httpServiceStats() {
    return ServiceSnapshots.httpServices(services.byKey());
  }

  /** The PROXY header counters of each service with {@code proxy_protocol accept}. */
  public synchronized Map<ServiceKey, ProxyProtocolStats.Counts> proxyProtocolStats() {
    return listeners.proxyProtocolStats(services.byKey());
  }

  /** Every service's real servers' learned limits, by service and server. */
  public synchronized Map<ServiceKey, Map<DestKey, LimitStats>> limitStats() {
    return ServiceSnapshots.limits(services.byKey());
  }

  /** Every service's queue for a slot, by service: for metrics, read without stopping anything. */
  public synchronized Map<ServiceKey, QueueStats> queueStats() {
    return ServiceSnapshots.queues(services.byKey());
  }
}
