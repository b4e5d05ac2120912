package io.fairway.proxy.table;

import io.fairway.plan.Plan;
import io.fairway.plan.PlanTarget;
import io.fairway.plan.ServicePlan;
import io.fairway.proxy.KeptEpollChannels;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.Transport;
import io.fairway.proxy.http.HttpFrontend;
import io.fairway.proxy.http.HttpStats;
import io.fairway.proxy.http.StrictRequestDecoder;
import io.fairway.proxy.http2.AlpnSwitch;
import io.fairway.proxy.http2.H2Stats;
import io.fairway.proxy.http2.H2cDetector;
import io.fairway.proxy.l4.TcpFrontend;
import io.fairway.proxy.l4.TrafficMeter;
import io.fairway.proxy.proxyprotocol.ProxyHeaderReader;
import io.fairway.proxy.proxyprotocol.ProxyProtocolStats;
import io.fairway.proxy.udp.UdpRelay;
import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Endpoints;
import io.fairway.table.ForwardingMethod;
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
import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollMode;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
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
 * <p>Thread-safety: table operations are serialised on this object; connections are handled on
 * Netty event loops that read immutable snapshots.
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

  /**
   * The event loops of every TCP listener and connection. A listener is registered with one of
   * them, not with a thread of its own, as HAProxy's threads accept: a loop accepts when it gets
   * round to it, so accepting cannot outrun serving. With an accept thread (until 2026-12-03), more
   * clients than the backends take made it hand the loops new connections faster than they could
   * set them up; they fell 65-260 ms behind, and each new backend connection sat empty that long,
   * the kind a busy nginx evicts (docs/benchmarks-proxy.md, "Overload"). A loop hands what it
   * accepted on in a task ({@link KeptEpollChannels#ACCEPTED}), after its batch of events.
   */
  private final EventLoopGroup ioGroup;

  /** UDP's event loops: {@link #ioGroup}, unless TCP runs on a transport UDP does not use. */
  private volatile EventLoopGroup udpGroup;

  private final Map<ServiceKey, ProxyService> services = new LinkedHashMap<>();
  private final ScheduledFuture<?> purger;
  private final ScheduledFuture<?> expirer;
  private final ConnectionExpiry expiry;
  private final Drain drain = new Drain();

  /** Live UDP flows of all services, bounded by {@link ProxyOptions#maxUdpFlows()}. */
  private final AtomicInteger udpFlows = new AtomicInteger();

  /** The batch under way ({@link #apply(List)} or a {@link #hold}), or null. */
  private Batch batch;

  /** Whether {@link #batch} is a hold ({@link #hold}), which only {@link #release} ends. */
  private boolean held;

  /**
   * What a batch touched: services whose pools are published once at its end, and removed servers
   * whose connections are closed after that (before it, the old pool could still hand them out).
   */
  private static final class Batch {
    final java.util.Set<ProxyService> services =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    final List<ProxyBackend> removed = new ArrayList<>();

    ProxyService enter(ProxyService vs) {
      if (services.add(vs)) {
        vs.beginBatch();
      }
      return vs;
    }
  }

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
  public ProxyTable(ProxyOptions options, Function<ServiceKey, ListenerSpec> specs) {
    this.base = Objects.requireNonNull(options, "options");
    this.options = options;
    this.specs = specs == null ? k -> null : specs;
    Transport.requireValid();
    this.ioGroup = Transport.group(options.ioThreads());
    this.purger = ioGroup.scheduleAtFixedRate(this::purgeTemplates, 10, 10, TimeUnit.SECONDS);
    this.expiry = new ConnectionExpiry(options.inactiveExpiry().toNanos());
    this.expirer = ioGroup.scheduleAtFixedRate(expiry::sweep, 250, 250, TimeUnit.MILLISECONDS);
    log.info("userspace data plane started ({} transport)", Transport.name());
  }

  /** A table with default options where every service is a TCP relay. */
  public static ProxyTable tcpOnly() {
    return new ProxyTable(ProxyOptions.defaults(), null);
  }

  /** The TLS contexts of the listeners that terminate TLS, and their handshake counters. */
  private final io.fairway.proxy.tls.TlsContexts tls = new io.fairway.proxy.tls.TlsContexts();

  private final H2Stats h2Stats = new H2Stats();

  public io.fairway.proxy.tls.TlsStats tlsStats() {
    return tls.stats();
  }

  /** The running plan's {@code access_log} writers. */
  private final io.fairway.proxy.accesslog.AccessLogFiles accessLogs =
      io.fairway.proxy.accesslog.AccessLogFiles.defaults();

  /** The access log of each service of the running plan ({@link #apply}); absent: none. */
  private Map<ServiceKey, io.fairway.proxy.accesslog.AccessLog> plannedLogs = Map.of();

  /** The access log files are closed and opened again at their paths (logrotate, SIGUSR1). */
  public void reopenAccessLogs() {
    accessLogs.reopen();
  }

  /** Each open access log's written and dropped records. */
  public List<io.fairway.proxy.accesslog.AccessLogFiles.Stat> accessLogStats() {
    return accessLogs.stats();
  }

  private io.fairway.proxy.accesslog.AccessLog plannedLog(ServiceKey key) {
    return plannedLogs.getOrDefault(key, io.fairway.proxy.accesslog.AccessLog.NONE);
  }

  private ListenerSpec specFor(ServiceKey key) {
    ListenerSpec s = planned.get(key);
    if (s == null) {
      s = specs.apply(key);
    }
    return s == null ? ListenerSpec.tcp() : s;
  }

  @Override
  public String refusal(Plan plan) {
    for (ServicePlan sp : plan.services()) {
      for (Service s : sp.services()) {
        ServiceKey key = s.key();
        if (key.isFwmark() || key.protocol() == Protocol.SCTP) {
          return sp.where()
              + ": virtual_server "
              + sp.name()
              + ": "
              + key
              + ": the userspace data plane serves TCP and UDP address services only";
        }
        if (key.protocol() == Protocol.UDP && sp.http()) {
          return sp.where() + ": virtual_server " + sp.name() + ": lb_kind HTTP needs protocol TCP";
        }
        if (!ProxyService.known(s.scheduler())) {
          return sp.where()
              + ": virtual_server "
              + sp.name()
              + ": unknown scheduler '"
              + s.scheduler()
              + "'";
        }
      }
    }
    // Built here, off the event loops: a certificate that cannot serve refuses the plan, and the
    // running contexts keep serving.
    for (ServicePlan sp : plan.services()) {
      try {
        tls.prepare(sp.proxy().tls(), sp.http());
      } catch (io.fairway.proxy.tls.ServerTls.TlsException e) {
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
      for (ProxyService vs : services.values()) {
        vs.setOptions(o);
      }
      log.info(
          "lvs_timeouts: idle timeout {} s, UDP flow timeout {} s (established connections and flows"
              + " from their next packet, as in IPVS)",
          o.idleTimeout().toSeconds(),
          o.udpTimeout().toSeconds());
    }
    Map<ServiceKey, ListenerSpec> next = new HashMap<>();
    plan.byKey().forEach((key, sp) -> next.put(key, ListenerSpec.of(sp, key)));
    planned = Map.copyOf(next);
    for (Map.Entry<ServiceKey, ProxyService> e : services.entrySet()) {
      ListenerSpec fresh = next.get(e.getKey());
      if (fresh != null && !fresh.equals(e.getValue().spec())) {
        e.getValue().setSpec(fresh);
        log.info(
            "{}: now {} {}",
            e.getKey(),
            // Mode.TCP is the layer-4 relay, which also carries UDP services.
            fresh.mode() == Mode.HTTP ? "HTTP" : "L4",
            fresh.selection() == null ? "" : fresh.selection().describe());
      }
    }
    List<Map.Entry<io.fairway.config.model.TlsSettings, Boolean>> tlsInUse =
        new java.util.ArrayList<>();
    for (ProxyService vs : services.values()) {
      tlsInUse.add(Map.entry(vs.spec().proxy().tls(), vs.spec().mode() == Mode.HTTP));
    }
    next.values().forEach(sp -> tlsInUse.add(Map.entry(sp.proxy().tls(), sp.mode() == Mode.HTTP)));
    tls.retain(tlsInUse);
    plannedLogs = accessLogs.open(plan);
    services.forEach((k, vs) -> vs.setAccessLog(plannedLog(k)));
  }

  /**
   * {@code lvs_timeouts} on this plane: {@code tcp N} is the idle timeout of established
   * connections (L4, and an HTTP exchange or tunnel, unless its {@code proxy_timeouts} say
   * otherwise), {@code udp N} the lifetime of an idle UDP flow; {@code tcpfin} has no counterpart.
   * Those not given are the table's own.
   */
  static ProxyOptions withLvsTimeouts(ProxyOptions o, Plan.Timeouts t) {
    ProxyOptions.Builder b = o.toBuilder();
    if (t.tcp().compareTo(java.time.Duration.ZERO) > 0) {
      b.idleTimeout(t.tcp());
    }
    if (t.udp().compareTo(java.time.Duration.ZERO) > 0) {
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
    service(key).setSpec(Objects.requireNonNull(spec, "spec"));
  }

  /**
   * The address a service's listener is bound to: its own address and port, or the port the system
   * chose for a service on port 0. {@code null} for an unknown service.
   */
  public synchronized InetSocketAddress boundAddress(ServiceKey key) {
    ProxyService vs = services.get(key);
    return vs == null ? null : vs.vip;
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
    if (services.containsKey(key)) {
      throw new TableException(Reason.EXISTS, key + ": service already exists");
    }
    checkScheduler(service);
    ProxyService vs = new ProxyService(service, spec, options, expiry);
    vs.setAccessLog(plannedLog(key));
    InetSocketAddress addr = new InetSocketAddress(key.address(), key.port());
    AbstractBootstrap<?, ?> boot =
        key.protocol() == Protocol.UDP ? datagramBootstrap(vs) : serverBootstrap(vs);
    (key.protocol() == Protocol.UDP ? Transport.udpFreeBind() : Transport.freeBind())
        .ifPresent(o -> boot.option(o, true)); // a VRRP backup listens before it holds the address
    ChannelFuture bind = boot.bind(addr).awaitUninterruptibly();
    if (!bind.isSuccess()) {
      // Not Reason.EXISTS: that means "the service is in the table already", which the apply
      // layer rightly takes as success, and then failed on with "no such service".
      throw new TableException(Reason.OTHER, cannotListen(key, addr, bind.cause()), bind.cause());
    }
    vs.listener = bind.channel();
    vs.vip = (InetSocketAddress) bind.channel().localAddress();
    services.put(key, vs);
    log.info(
        "{}: listening on {} ({}, {})",
        key,
        vs.vip,
        key.protocol() == Protocol.UDP ? "UDP flows" : vs.spec().mode(),
        service.scheduler());
  }

  /**
   * The one-line reason a listener cannot be had, naming the address and, if known, who holds it.
   */
  private static String cannotListen(ServiceKey key, InetSocketAddress addr, Throwable c) {
    String m =
        c == null || c.getMessage() == null
            ? ""
            : c.getMessage().toLowerCase(java.util.Locale.ROOT);
    String why;
    if (m.contains("in use")) {
      why =
          "address already in use"
              + PortOwner.describe(key.protocol(), addr.getPort())
                  .map(w -> " (" + w + ")")
                  .orElse("");
    } else if (m.contains("assign requested address")) {
      why = "address not local (cannot assign requested address)";
    } else if (m.contains("permission denied") || m.contains("access denied")) {
      why = "permission denied (a port below 1024 needs CAP_NET_BIND_SERVICE)";
    } else if (c instanceof BindException) {
      why = "address already in use or not local";
    } else {
      why = TcpFrontend.reason(c);
    }
    return key
        + ": cannot listen on "
        + Endpoints.format(addr.getAddress(), addr.getPort())
        + ": "
        + why;
  }

  /**
   * Whether the service's listener could be bound now, without changing anything: empty when it is
   * in this table already or the address is free, else the reason {@link #addService} would give.
   * For a reload that must be refused whole rather than half applied. (Another process may still
   * take the port between this check and the bind.)
   */
  public synchronized Optional<String> checkListen(ServiceKey key) {
    if (services.containsKey(key)
        || key.isFwmark()
        || key.protocol() == Protocol.SCTP
        || key.port() == 0) {
      return Optional.empty();
    }
    InetSocketAddress addr = new InetSocketAddress(key.address(), key.port());
    try {
      if (key.protocol() == Protocol.UDP) {
        try (java.net.DatagramSocket s = new java.net.DatagramSocket(null)) {
          s.bind(addr);
        }
      } else {
        try (java.net.ServerSocket s = new java.net.ServerSocket()) {
          s.setReuseAddress(true); // as the listener does: a port in TIME_WAIT is free
          s.bind(addr, 1);
        }
      }
      return Optional.empty();
    } catch (IOException e) {
      if (notLocal(e)
          && (key.protocol() == Protocol.UDP ? Transport.udpFreeBind() : Transport.freeBind())
              .isPresent()) {
        // The listener binds with IP_FREEBIND (a VRRP backup listens on the virtual address
        // before it holds it); java.net cannot set it, so only a port in use refuses the plan.
        return Optional.empty();
      }
      return Optional.of(cannotListen(key, addr, e));
    }
  }

  private static boolean notLocal(IOException e) {
    return e instanceof BindException
        && e.getMessage() != null
        && e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("assign requested address");
  }

  private ServerBootstrap serverBootstrap(ProxyService vs) {
    ServerBootstrap b = new ServerBootstrap();
    if (options.splices() && vs.spec().mode() == Mode.TCP) { // splices(): epoll only
      // spliceTo needs level-triggered channels, and the mode is fixed before registration.
      // (A listener whose spec later turns into an L4 relay just copies.)
      b.childOption(EpollChannelOption.EPOLL_MODE, EpollMode.LEVEL_TRIGGERED);
    }
    // No TCP_NODELAY option: Netty's socket configs set it on every new socket already, and
    // setting it again costs a system call per connection.
    return b.group(ioGroup, ioGroup)
        .channelFactory(Transport.serverChannel(vs.service().key().address()))
        .option(ChannelOption.SO_BACKLOG, 4096)
        .option(ChannelOption.SO_REUSEADDR, true)
        .handler(KeptEpollChannels.ACCEPTED)
        .childOption(ChannelOption.ALLOCATOR, Transport.ALLOCATOR)
        .childOption(
            ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 * 1024, 64 * 1024))
        .childHandler(
            new ChannelInitializer<Channel>() {
              @Override
              protected void initChannel(Channel ch) {
                initClient(vs, ch);
              }
            });
  }

  private EventLoopGroup udpGroup() {
    if (udpGroup == null) {
      udpGroup = Transport.udpGroup(ioGroup, options.ioThreads());
    }
    return udpGroup;
  }

  /** A UDP service: one socket on the virtual address, a flow per client (see {@link UdpRelay}). */
  private Bootstrap datagramBootstrap(ProxyService vs) {
    return new Bootstrap()
        .group(udpGroup())
        .channel(Transport.datagramChannel())
        .option(ChannelOption.ALLOCATOR, Transport.ALLOCATOR)
        // No SO_REUSEADDR: for UDP it would let a second socket bind the same address and
        // silently share its datagrams, instead of failing with "address already in use".
        .option(ChannelOption.SO_RCVBUF, 1 << 20) // absorbs a burst while the loop is busy
        .option(
            ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(UdpRelay.MAX_DATAGRAM))
        .option(
            ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 512 * 1024))
        .handler(new UdpRelay(vs, options, udpFlows));
  }

  /** Builds an accepted connection's pipeline from the service's spec as of now. */
  private void initClient(ProxyService vs, Channel ch) {
    drain.track(ch);
    ChannelPipeline p = ch.pipeline();
    ListenerSpec spec = vs.spec();
    if (spec.proxy().tls().enabled()) {
      initTlsClient(vs, spec, ch);
      return;
    }
    if (vs.spec().mode() == Mode.HTTP && spec.proxy().tls().alpn().contains("h2")) {
      // h2c by prior knowledge: the first bytes tell HTTP/2's preface from an HTTP/1.1 request.
      p.addLast(new H2cDetector(vs, options, h2Stats, c -> addHttp1(vs, c.pipeline())));
    } else if (vs.spec().mode() == Mode.HTTP) {
      addHttp1(vs, p);
    } else {
      // The idle timeout of an L4 connection is an IdleWatch fed by the meters, which also see
      // spliced bytes (an IdleStateHandler would not, and costs a listener per write).
      ch.config().setAutoRead(false);
      ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
      TrafficMeter meter = new TrafficMeter(ch.config().getRecvByteBufAllocator());
      ch.config().setRecvByteBufAllocator(meter);
      p.addLast(new TcpFrontend(vs, options, meter));
    }
    // Last, so in front of everything: the PROXY header is the first thing on the wire.
    if (vs.spec().proxy().proxyProtocol().accept()) {
      ProxyHeaderReader.install(
          p, vs.proxyProtocol, vs.timeouts().requestHead(), vs.service().key());
    }
  }

  /** The HTTP/1.1 handlers at the end of {@code p}. */
  private void addHttp1(ProxyService vs, ChannelPipeline p) {
    HttpFrontend frontend = new HttpFrontend(vs, options);
    // HttpFrontend keeps the idle timeout itself (its ticker), so no IdleStateHandler here.
    p.addLast(new HttpFrontend.ReadMarker(frontend))
        .addLast(new StrictRequestDecoder(options))
        .addLast(frontend);
  }

  /** The HTTP/2 plane's counters (h2 by ALPN and h2c). */
  public H2Stats h2Stats() {
    return h2Stats;
  }

  /**
   * A connection to a listener that terminates TLS: the SNI handler first; the HTTP handlers behind
   * it at once, the L4 relay only once the handshake succeeded.
   */
  private void initTlsClient(ProxyService vs, ListenerSpec spec, Channel ch) {
    boolean http = spec.mode() == Mode.HTTP;
    io.fairway.proxy.tls.ServerTls t;
    try {
      t = tls.get(spec.proxy().tls(), http);
    } catch (io.fairway.proxy.tls.ServerTls.TlsException e) {
      log.warn("{}: {}; connection closed", vs.service().key(), e.getMessage());
      ch.close();
      return;
    }
    ChannelPipeline p = ch.pipeline().addLast(t.newHandler());
    if (http) {
      // The protocol ALPN chose (h2 or http/1.1) decides the handlers once the handshake is done.
      p.addLast(new io.fairway.proxy.tls.TlsHandshakes(tls.stats(), null))
          .addLast(new AlpnSwitch(vs, options, h2Stats, c -> addHttp1(vs, c.pipeline())));
      return;
    }
    ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    TrafficMeter meter = new TrafficMeter(ch.config().getRecvByteBufAllocator());
    ch.config().setRecvByteBufAllocator(meter);
    p.addLast(
        new io.fairway.proxy.tls.TlsHandshakes(
            tls.stats(), () -> new TcpFrontend(vs, options, meter)));
  }

  private static void checkScheduler(Service s) throws TableException {
    if (!ProxyService.known(s.scheduler())) {
      throw new TableException(
          Reason.NOT_FOUND, s.key() + ": unknown scheduler '" + s.scheduler() + "'");
    }
  }

  /**
   * Sends the records of a service's requests (or L4 connections) to {@code log}; {@code
   * AccessLog.NONE} stops them. Takes effect for requests that start from now on.
   */
  public synchronized void setAccessLog(ServiceKey key, io.fairway.proxy.accesslog.AccessLog log)
      throws TableException {
    member(key).setAccessLog(log);
  }

  @Override
  public synchronized void setService(Service service) throws TableException {
    ProxyService vs = member(service.key());
    checkScheduler(service);
    vs.setService(service);
    ListenerSpec fresh = specFor(service.key());
    if (!fresh.equals(vs.spec())) {
      vs.setSpec(fresh);
    }
  }

  @Override
  public synchronized void delService(ServiceKey key) throws TableException {
    ProxyService vs = service(key);
    services.remove(key);
    vs.listener.close().awaitUninterruptibly();
    List<ProxyBackend> all = vs.all();
    vs.beginBatch(); // n deletes, one publication
    for (ProxyBackend rs : all) {
      vs.delDest(rs.key);
    }
    vs.endBatch();
    for (ProxyBackend rs : all) {
      closeConnections(rs);
    }
    vs.persistence.clear();
    log.info("{}: service deleted", key);
  }

  /**
   * Runs the operations one by one, with the kernel's result for each, but publishes each touched
   * service's pool once at the end instead of after every destination: installing n servers is
   * O(n), not O(n²) (10,000 took minutes). New connections see the table as it was until the batch
   * is done, as they would see a kernel that has not yet read the netlink batch.
   */
  @Override
  public synchronized List<TableException> apply(List<TableOp> ops) {
    if (held) {
      return Table.super.apply(ops); // published with the hold
    }
    Batch b = new Batch();
    batch = b;
    try {
      return Table.super.apply(ops);
    } finally {
      batch = null;
      publish(b);
    }
  }

  /**
   * Until {@link #release}, operations run (and are refused) one by one as in a batch, and the
   * pools they change are published once, at the release: the apply layer's verdicts that arrive
   * together (9,999 servers found dead in the first seconds were 9,999 publications of a
   * 10,000-server pool).
   */
  @Override
  public synchronized boolean hold() {
    if (batch == null) {
      batch = new Batch();
    }
    held = true;
    return true;
  }

  @Override
  public synchronized void release() {
    if (!held) {
      return;
    }
    held = false;
    Batch b = batch;
    batch = null;
    publish(b);
  }

  /** Publishes each service a batch touched, then closes what its removed servers still had. */
  private void publish(Batch b) {
    for (ProxyService vs : b.services) {
      vs.endBatch();
    }
    for (ProxyBackend rs : b.removed) {
      closeConnections(rs);
    }
  }

  /** The service, in the batch under way if there is one. */
  private ProxyService member(ServiceKey key) throws TableException {
    ProxyService vs = service(key);
    return batch == null ? vs : batch.enter(vs);
  }

  @Override
  public synchronized void addDest(ServiceKey service, Dest dest) throws TableException {
    ProxyService vs = member(service);
    checkDest(service, dest);
    if (vs.hasDest(dest.key())) {
      throw new TableException(
          Reason.EXISTS, service + ": destination " + dest.key() + " already exists");
    }
    vs.addDest(dest);
  }

  @Override
  public synchronized void setDest(ServiceKey service, Dest dest) throws TableException {
    ProxyService vs = member(service);
    checkDest(service, dest);
    if (!vs.hasDest(dest.key())) {
      throw new TableException(Reason.NOT_FOUND, service + ": no destination " + dest.key());
    }
    vs.setDest(dest);
  }

  /**
   * Slow start in the scheduler: the destination (now, or once it is added) takes the ramp's
   * fraction of its share; see {@link RampTarget}.
   */
  @Override
  public synchronized void ramp(ServiceKey service, DestKey dest, Ramp ramp) throws TableException {
    service(service).ramp(dest, ramp);
  }

  @Override
  public synchronized void delDest(ServiceKey service, DestKey dest) throws TableException {
    ProxyService vs = member(service);
    if (!vs.hasDest(dest)) {
      throw new TableException(Reason.NOT_FOUND, service + ": no destination " + dest);
    }
    ProxyBackend rs = vs.delDest(dest);
    if (batch != null) {
      batch.removed.add(rs);
    } else {
      closeConnections(rs);
    }
  }

  private void closeConnections(ProxyBackend rs) {
    rs.pool.closeAll();
    if (options.keepConnectionsOnRemove()) {
      return;
    }
    rs.h2.closeAll(); // its streams are the exchanges of the connections closed below
    int n = 0;
    for (Channel ch : rs.established) {
      ch.close();
      n++;
    }
    if (n > 0) {
      log.info("{}: removed; closed {} established connection(s)", rs, n);
    }
  }

  private static void checkDest(ServiceKey service, Dest dest) throws TableException {
    // As the kernel (ERANGE), also without an upper threshold: the schedulers' model refuses it
    // with an unchecked exception, which would cut a batch short.
    if (dest.lowerThreshold() > dest.upperThreshold()) {
      throw new TableException(
          Reason.RANGE, service + ": " + dest.key() + " lthreshold above uthreshold");
    }
    if (dest.port() == 0) {
      throw new TableException(
          Reason.INVALID,
          service + ": destination " + dest.key() + " needs a port to be proxied to");
    }
    if (dest.forwarding() != ForwardingMethod.MASQ) {
      log.debug(
          "{}: {} forwarding {} is proxied like NAT in userspace",
          service,
          dest.key(),
          dest.forwarding());
    }
  }

  private ProxyService service(ServiceKey key) throws TableException {
    ProxyService vs = services.get(key);
    if (vs == null) {
      throw new TableException(Reason.NO_SERVICE, key + ": no such service");
    }
    return vs;
  }

  @Override
  public synchronized List<ServiceEntry> list() {
    List<ServiceEntry> out = new ArrayList<>(services.size());
    for (ProxyService vs : services.values()) {
      out.add(vs.entry());
    }
    return out;
  }

  @Override
  public synchronized void flush() throws TableException {
    for (ServiceKey k : new ArrayList<>(services.keySet())) {
      delService(k);
    }
  }

  private void purgeTemplates() {
    long now = System.nanoTime();
    List<ProxyService> l;
    synchronized (this) {
      l = new ArrayList<>(services.values());
    }
    for (ProxyService vs : l) {
      vs.persistence.purge(now);
      ProxyService.Pool p = vs.pool();
      if (p.kernel() != null) {
        p.kernel().expireTemplates();
      }
    }
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
    for (ProxyService vs : services.values()) {
      if (vs.service().key().protocol() != Protocol.UDP) {
        vs.listener.close().awaitUninterruptibly();
      }
    }
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
      EventLoopGroup udp = udpGroup;
      if (udp != null && udp != ioGroup) {
        udp.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
      }
      ioGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
      accessLogs.close(); // after the loops: the last requests' records are written
    }
  }

  /**
   * The HTTP counters of every real server of every HTTP service, by service and destination; empty
   * for L4 services. For metrics; read without stopping the data plane.
   */
  public synchronized Map<ServiceKey, Map<DestKey, HttpStats.Snapshot>> httpStats() {
    Map<ServiceKey, Map<DestKey, HttpStats.Snapshot>> out = new LinkedHashMap<>();
    services.forEach(
        (k, vs) -> {
          if (vs.spec().mode() == Mode.HTTP) {
            Map<DestKey, HttpStats.Snapshot> m = new LinkedHashMap<>();
            for (ProxyBackend rs : vs.all()) {
              m.put(rs.key, rs.http.snapshot());
            }
            out.put(k, m);
          }
        });
    return out;
  }

  /**
   * The HTTP counters of every HTTP service for the requests it chose no real server for (the
   * proxy's 503s), by service.
   */
  public synchronized Map<ServiceKey, HttpStats.Snapshot> httpServiceStats() {
    Map<ServiceKey, HttpStats.Snapshot> out = new LinkedHashMap<>();
    services.forEach(
        (k, vs) -> {
          if (vs.spec().mode() == Mode.HTTP) {
            out.put(k, vs.http.snapshot());
          }
        });
    return out;
  }

  /** Every service's queue for a slot, by service: for metrics, read without stopping anything. */
  /** The PROXY header counters of each service with {@code proxy_protocol accept}. */
  public synchronized Map<ServiceKey, ProxyProtocolStats.Counts> proxyProtocolStats() {
    Map<ServiceKey, ProxyProtocolStats.Counts> out = new LinkedHashMap<>();
    services.forEach(
        (k, vs) -> {
          if (vs.spec().proxy().proxyProtocol().accept()) {
            out.put(k, vs.proxyProtocol.counts());
          }
        });
    return out;
  }

  /** Every service's real servers' learned limits ({@link LearnedLimit}), by service and server. */
  public synchronized Map<ServiceKey, Map<DestKey, LimitStats>> limitStats() {
    Map<ServiceKey, Map<DestKey, LimitStats>> out = new LinkedHashMap<>();
    services.forEach(
        (k, vs) -> {
          Map<DestKey, LimitStats> m = new LinkedHashMap<>();
          for (ProxyBackend rs : vs.all()) {
            m.put(rs.key, LimitStats.of(rs));
          }
          out.put(k, m);
        });
    return out;
  }

  public synchronized Map<ServiceKey, QueueStats> queueStats() {
    Map<ServiceKey, QueueStats> out = new LinkedHashMap<>();
    services.forEach((k, vs) -> out.put(k, vs.slots().stats()));
    return out;
  }
}
