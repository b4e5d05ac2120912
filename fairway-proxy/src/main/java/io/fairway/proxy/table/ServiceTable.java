package io.fairway.proxy.table;

import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.accesslog.AccessLog;
import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Ramp;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.TableException;
import io.fairway.table.TableException.Reason;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table's virtual services and their destinations, as the {@code Table} operations leave them:
 * what the userspace table is, without a socket. The plane above it ({@code
 * io.fairway.proxy.plane}) binds a listener for each service and builds the frontends; this decides
 * what the operations mean for the services (the kernel's refusals, batches that publish once) and
 * tells the frontends, through {@link Frontends}, what only they can do.
 *
 * <p>Not thread-safe on its own: every method runs under the lock of the table that owns it, as the
 * table's operations are serialised. Event loops read only the services' published pools.
 */
public final class ServiceTable {
  private static final Logger log = LoggerFactory.getLogger(ServiceTable.class);

  private final Map<ServiceKey, ProxyService> services = new LinkedHashMap<>();

  /**
   * The same services for {@link #purgeTemplates}, which runs on an event loop and so must not take
   * the owner's lock: the owner holds it while it waits for an event loop (a listener's bind or
   * close), and an event loop waiting for it in turn would never get there.
   */
  private final Map<ServiceKey, ProxyService> purgeable = new ConcurrentHashMap<>();

  private final ConnectionExpiry expiry;
  private final Frontends frontends;

  /** The batch under way ({@link #inBatch} or a {@link #hold}), or null. */
  private @Nullable Batch batch;

  /** Whether {@link #batch} is a hold ({@link #hold}), which only {@link #release} ends. */
  private boolean held;

  /**
   * What a batch touched: services whose pools are published once at its end, and removed servers
   * whose connections are closed after that (before it, the old pool could still hand them out).
   */
  private static final class Batch {
    final Set<ProxyService> services = Collections.newSetFromMap(new IdentityHashMap<>());
    final List<ProxyBackend> removed = new ArrayList<>();

    ProxyService enter(ProxyService vs) {
      if (services.add(vs)) {
        vs.beginBatch();
      }
      return vs;
    }
  }

  /**
   * @param options the table's options: how long a closed connection counts as inactive
   * @param frontends told what only the frontends can do
   */
  public ServiceTable(ProxyOptions options, Frontends frontends) {
    this.expiry = new ConnectionExpiry(options.inactiveExpiry().toNanos());
    this.frontends = Objects.requireNonNull(frontends, "frontends");
  }

  /** Expires closed connections that are due; the owner calls it a few times a second. */
  public void sweepExpired() {
    expiry.sweep();
  }

  /** Whether the table can run this scheduler name. */
  public static boolean knownScheduler(String scheduler) {
    return ProxyService.known(scheduler);
  }

  /** Refuses a scheduler the table cannot run, as the kernel does. */
  public static void checkScheduler(Service s) throws TableException {
    if (!knownScheduler(s.scheduler())) {
      throw new TableException(
          Reason.NOT_FOUND, s.key() + ": unknown scheduler '" + s.scheduler() + "'");
    }
  }

  public boolean contains(ServiceKey key) {
    return services.containsKey(key);
  }

  /** The service, or {@code null}. */
  public @Nullable ProxyService find(ServiceKey key) {
    return services.get(key);
  }

  /** The services by key, in the order they were added; a read-only view. */
  public Map<ServiceKey, ProxyService> byKey() {
    return Collections.unmodifiableMap(services);
  }

  /**
   * A new service, not in the table yet: the owner binds its listener first, then {@link #add}s it
   * (a service whose listener cannot be had never was).
   */
  public ProxyService create(
      Service s, ListenerSpec spec, ProxyOptions options, AccessLog accessLog)
      throws TableException {
    checkScheduler(s);
    ProxyService vs = new ProxyService(s, spec, options, expiry, frontends);
    vs.setAccessLog(accessLog);
    return vs;
  }

  /** Adds a service {@link #create}d, whose listener is bound to {@code vip}. */
  public void add(ProxyService vs, InetSocketAddress vip) {
    vs.vip = vip;
    services.put(vs.service().key(), vs);
    purgeable.put(vs.service().key(), vs);
  }

  /**
   * Takes the service out of the table; the owner closes its listener, then {@link #drop}s it.
   *
   * @throws TableException {@link Reason#NO_SERVICE} when there is none
   */
  public ProxyService remove(ServiceKey key) throws TableException {
    ProxyService vs = service(key);
    services.remove(key);
    purgeable.remove(key);
    return vs;
  }

  /** Removes every destination of a removed service, closing what they had. */
  public void drop(ProxyService vs) {
    List<ProxyBackend> all = vs.all();
    vs.beginBatch(); // n deletes, one publication
    for (ProxyBackend rs : all) {
      vs.delDest(rs.key);
    }
    vs.endBatch();
    for (ProxyBackend rs : all) {
      frontends.removed(rs);
    }
    vs.persistence.clear();
  }

  /** {@code setService}: a new scheduler or persistence in place, then the spec as of now. */
  public void setService(Service service, Function<ServiceKey, ListenerSpec> specs)
      throws TableException {
    ProxyService vs = member(service.key());
    checkScheduler(service);
    vs.setService(service);
    respec(vs, specs.apply(service.key()));
  }

  /** A service takes {@code fresh} if it differs; whether it did. */
  public boolean respec(ProxyService vs, @Nullable ListenerSpec fresh) {
    if (fresh == null || fresh.equals(vs.spec())) {
      return false;
    }
    vs.setSpec(fresh);
    return true;
  }

  /** Replaces a service's spec, as {@code ProxyTable.updateSpec} documents. */
  public void updateSpec(ServiceKey key, ListenerSpec spec) throws TableException {
    service(key).setSpec(Objects.requireNonNull(spec, "spec"));
  }

  /** Every service takes the table's new options (a reload's {@code lvs_timeouts}). */
  public void setOptions(ProxyOptions o) {
    for (ProxyService vs : services.values()) {
      vs.setOptions(o);
    }
  }

  /** A service's access log from now on. */
  public void setAccessLog(ServiceKey key, AccessLog accessLog) throws TableException {
    member(key).setAccessLog(accessLog);
  }

  /** Every service's access log from now on, as {@code logs} says for its key. */
  public void setAccessLogs(Function<ServiceKey, AccessLog> logs) {
    services.forEach((k, vs) -> vs.setAccessLog(logs.apply(k)));
  }

  /**
   * Runs {@code ops} as one batch: each touched service's pool is published once at the end instead
   * of after every destination, so installing n servers is O(n), not O(n²). New connections see the
   * table as it was until the batch is done, as they would see a kernel that has not yet read the
   * netlink batch. Inside a {@link #hold}, the hold publishes.
   */
  public <T> T inBatch(Supplier<T> ops) {
    if (held) {
      return ops.get();
    }
    Batch b = new Batch();
    batch = b;
    try {
      return ops.get();
    } finally {
      batch = null;
      publish(b);
    }
  }

  /** Until {@link #release}, a batch that only the release publishes. */
  public void hold() {
    if (batch == null) {
      batch = new Batch();
    }
    held = true;
  }

  /** Ends a {@link #hold}: one publication for all it held. */
  public void release() {
    if (!held) {
      return;
    }
    held = false;
    Batch b = Objects.requireNonNull(batch, "a hold keeps a batch");
    batch = null;
    publish(b);
  }

  /** Publishes each service a batch touched, then closes what its removed servers still had. */
  private void publish(Batch b) {
    for (ProxyService vs : b.services) {
      vs.endBatch();
    }
    for (ProxyBackend rs : b.removed) {
      frontends.removed(rs);
    }
  }

  /** The service, in the batch under way if there is one. */
  private ProxyService member(ServiceKey key) throws TableException {
    ProxyService vs = service(key);
    return batch == null ? vs : batch.enter(vs);
  }

  private ProxyService service(ServiceKey key) throws TableException {
    ProxyService vs = services.get(key);
    if (vs == null) {
      throw new TableException(Reason.NO_SERVICE, key + ": no such service");
    }
    return vs;
  }

  public void addDest(ServiceKey service, Dest dest) throws TableException {
    ProxyService vs = member(service);
    checkDest(service, dest);
    if (vs.hasDest(dest.key())) {
      throw new TableException(
          Reason.EXISTS, service + ": destination " + dest.key() + " already exists");
    }
    vs.addDest(dest);
  }

  public void setDest(ServiceKey service, Dest dest) throws TableException {
    ProxyService vs = member(service);
    checkDest(service, dest);
    if (!vs.hasDest(dest.key())) {
      throw new TableException(Reason.NOT_FOUND, service + ": no destination " + dest.key());
    }
    vs.setDest(dest);
  }

  /** Slow start in the scheduler: see {@code RampTarget}. */
  public void ramp(ServiceKey service, DestKey dest, Ramp ramp) throws TableException {
    service(service).ramp(dest, ramp);
  }

  public void delDest(ServiceKey service, DestKey dest) throws TableException {
    ProxyService vs = member(service);
    if (!vs.hasDest(dest)) {
      throw new TableException(Reason.NOT_FOUND, service + ": no destination " + dest);
    }
    ProxyBackend rs = vs.delDest(dest);
    if (batch != null) {
      batch.removed.add(rs);
    } else {
      frontends.removed(rs);
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

  public List<ServiceEntry> list() {
    List<ServiceEntry> out = new ArrayList<>(services.size());
    for (ProxyService vs : services.values()) {
      out.add(ServiceSnapshots.entry(vs));
    }
    return out;
  }

  /**
   * Forgets the services' expired persistence templates. Safe from any thread without the owner's
   * lock: the templates have their own locking, and the services are read from a concurrent map.
   */
  public void purgeTemplates(long now) {
    for (ProxyService vs : purgeable.values()) {
      vs.persistence.purge(now);
      ProxyService.Pool p = vs.pool();
      if (p.kernel() != null) {
        p.kernel().expireTemplates();
      }
    }
  }
}
