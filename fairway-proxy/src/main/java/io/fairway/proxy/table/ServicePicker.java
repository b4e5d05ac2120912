package io.fairway.proxy.table;

import io.fairway.director.sched.Connection;
import io.fairway.director.sched.Flow;
import io.fairway.director.sched.SchedDest;
import io.fairway.plan.Selection;
import io.fairway.table.Service;
import io.fairway.table.ServiceFlag;
import io.netty.channel.EventLoop;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The event loops' side of a virtual service: which server a new connection or request gets, read
 * from the pool its {@link ProxyService} last published, without locking. Kept apart from the
 * service, whose writers change members and rebuild the algorithm under the table's lock, because
 * the two sides share nothing but the published pool: this one only reads it, and answers with a
 * {@link Lease}, a place in the {@link SlotQueue} or a refusal.
 *
 * <p>Both algorithm paths are here: the kernel's schedulers pick in the director library's model,
 * which applies thresholds, persistence and the sorry server itself; the Varnish directors pick
 * over the pool with the table's own {@link DirectorPersistence}, thresholds, bounded load and
 * overflow to the sorry server.
 */
final class ServicePicker {
  private final ProxyService vs;
  private final ConnectionExpiry expiry;
  private final SlotQueue slots;

  /** The service's kernel-model servers as the table has them now ({@link ProxyService}). */
  private final Map<SchedDest, ProxyBackend> live;

  ServicePicker(
      ProxyService vs,
      ConnectionExpiry expiry,
      SlotQueue slots,
      Map<SchedDest, ProxyBackend> live) {
    this.vs = vs;
    this.expiry = expiry;
    this.slots = slots;
    this.live = live;
  }

  private Lease lease(ProxyBackend rs, @Nullable Connection c) {
    return new Lease(rs, c, expiry, slots);
  }

  /** {@link ProxyService#select(InetSocketAddress, String, Set, int)}. */
  @Nullable Lease select(
      InetSocketAddress client, @Nullable String key, Set<ProxyBackend> tried, int askedAlt) {
    ProxyService.Pool p = vs.pool();
    if (tried.isEmpty()) {
      return p.kernel() != null
          ? kernelPick(p, client, key)
          : varnishPick(p, client, key, askedAlt);
    }
    if (p.varnish() != null) {
      ProxyBackend alt = p.varnish().pick(client, vs.vip, key, baseAlt(askedAlt) + tried.size());
      if (alt != null && !tried.contains(alt) && alt.weight() > 0 && !overloaded(alt)) {
        return lease(alt, null);
      }
    }
    for (ProxyBackend rs : p.servers()) {
      if (!tried.contains(rs) && rs.weight() > 0 && !overloaded(rs)) {
        return lease(rs, null);
      }
    }
    ProxyBackend s = p.sorry();
    if (s != null && !tried.contains(s) && !s.removed()) {
      return lease(s, null);
    }
    return null;
  }

  /** {@link ProxyService#schedule}: select, or queue for a slot, or refuse. */
  Pick schedule(
      InetSocketAddress client,
      @Nullable String key,
      Set<ProxyBackend> tried,
      int askedAlt,
      EventLoop loop,
      Duration wait,
      SlotWaiter waiter) {
    boolean first = tried.isEmpty();
    boolean behind = first && slots.waiting() > 0;
    Lease lease = behind ? null : select(client, key, tried, askedAlt);
    if (lease != null) {
      return lease;
    }
    if (!first) {
      return Pick.None.ALL_TRIED;
    }
    if (!behind) {
      if (!atCapacity()) {
        return Pick.None.NO_SERVER;
      }
      countLimitHits();
    }
    return slots.await(
            loop, wait, () -> turn(client, key, tried, askedAlt, waiter), () -> giveUp(waiter))
        ? Pick.Queued.QUEUED
        : Pick.None.QUEUE_FULL;
  }

  /** A queued one's time is up: refused, unless it went away meanwhile. */
  private static boolean giveUp(SlotWaiter waiter) {
    if (waiter.gone()) {
      return false;
    }
    waiter.timedOut();
    return true;
  }

  /** A queued one's turn: a slot may have freed. False while there still is none. */
  private boolean turn(
      InetSocketAddress client,
      @Nullable String key,
      Set<ProxyBackend> tried,
      int askedAlt,
      SlotWaiter waiter) {
    if (waiter.gone()) {
      return true;
    }
    Lease lease = select(client, key, tried, askedAlt);
    if (lease == null && atCapacity()) {
      return false;
    }
    waiter.resume(lease != null ? lease : Pick.None.NO_SERVER);
    return true;
  }

  /** {@link ProxyService#atCapacity}: only full servers, which will free a slot. */
  boolean atCapacity() {
    for (ProxyBackend rs : vs.pool().servers()) {
      if (rs.weight() > 0 && overloaded(rs)) {
        return true;
      }
    }
    return false;
  }

  private static boolean overloaded(ProxyBackend rs) {
    SchedDest kd = rs.kernelDest;
    if (kd == null) {
      return rs.overloaded();
    }
    return kd.overloaded();
  }

  /**
   * A pick found every server full and is about to wait for a slot: one hit for each server the
   * learned limit held. Counted here, once per pick, rather than wherever a server is asked whether
   * it is full, which a single pick does several times.
   */
  private void countLimitHits() {
    for (ProxyBackend rs : vs.pool().servers()) {
      if (rs.weight() > 0) {
        SchedDest kd = rs.kernelDest;
        if (rs.heldByLearnedLimit(kd == null ? rs.active() : kd.activeConns())) {
          rs.limitHit();
        }
      }
    }
  }

  private @Nullable Lease kernelPick(
      ProxyService.Pool p, InetSocketAddress client, @Nullable String key) {
    InetAddress ca = key == null ? client.getAddress() : keyAddress(key);
    InetSocketAddress v = vs.vip;
    Connection c =
        Objects.requireNonNull(p.kernel(), "a pool has a kernel model or a director")
            .open(
                new Flow(
                    ca,
                    client.getPort(),
                    v == null ? null : v.getAddress(),
                    v == null ? 0 : v.getPort()));
    if (c == null) {
      return null;
    }
    ProxyBackend rs = p.byKernelDest().get(c.dest());
    if (rs == null) {
      rs = live.get(c.dest()); // the model published ahead of the pool
    }
    if (rs == null) {
      // Published between the pick and this lookup: count it gone and let the caller retry.
      c.closing();
      c.expire();
      return null;
    }
    return lease(rs, c);
  }

  /**
   * The key of an HTTP request as an address for the kernel's hashing schedulers (sh, mh, dh): a
   * 32-bit hash of it in IPv4 form, so "sh by URL" spreads URLs as sh spreads clients.
   */
  static InetAddress keyAddress(String key) {
    int h = key.hashCode() * 0x9E3779B1;
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    for (byte b : k) {
      h = (h ^ b) * 0x01000193;
    }
    try {
      return InetAddress.getByAddress(
          new byte[] {(byte) (h >>> 24), (byte) (h >>> 16), (byte) (h >>> 8), (byte) h});
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * Bounded-load consistent hashing ({@code hash_balance_factor}, as HAProxy and Envoy offer it): a
   * server may take a new connection only while its load stays under factor% of the mean, so a hot
   * key spills to the next server on the ring instead of melting its own. Without a factor there is
   * no bound.
   */
  private long loadBound(ProxyService.Pool p) {
    long factor = p.hashBalanceFactor();
    if (factor == 0) {
      return Long.MAX_VALUE;
    }
    long total = 0;
    long up = 0;
    for (ProxyBackend rs : p.servers()) {
      if (rs.weight() > 0) {
        up++;
        total += rs.active() + rs.inactive();
      }
    }
    return up == 0 ? Long.MAX_VALUE : ((total + 1) * factor + 100 * up - 1) / (100 * up);
  }

  /** The alt a first pick used: the one asked for, else the shard's own default. */
  private int baseAlt(int askedAlt) {
    if (askedAlt >= 0) {
      return askedAlt;
    }
    return vs.selection() instanceof Selection.Shard sh ? sh.alt() : 0;
  }

  private @Nullable Lease varnishPick(
      ProxyService.Pool p, InetSocketAddress client, @Nullable String key, int askedAlt) {
    Service s = vs.service();
    boolean persistent = s.flags().contains(ServiceFlag.PERSISTENT) && s.timeout() > 0;
    long now = System.nanoTime();
    long timeout = TimeUnit.SECONDS.toNanos(s.timeout());
    InetAddress ca = client.getAddress();
    if (persistent) {
      ProxyBackend rs = vs.persistence.lookup(ca, s.netmask(), timeout, now);
      if (rs != null && p.servers().contains(rs)) {
        return lease(rs, null);
      }
    }
    ProxyBackend chosen = null;
    ProxyBackend firstEligible = null;
    int n = p.servers().size();
    long bound = loadBound(p);
    int base = baseAlt(askedAlt);
    for (int i = 0; i < n && chosen == null; i++) {
      // The first pick as asked (or the shard's default); then the next alternatives, skipping
      // servers that cannot take it.
      ProxyBackend rs =
          Objects.requireNonNull(p.varnish(), "a pool has a kernel model or a director")
              .pick(client, vs.vip, key, i == 0 ? askedAlt : base + i);
      if (rs == null) {
        break;
      }
      if (rs.weight() > 0 && !rs.overloaded()) {
        if (firstEligible == null) {
          firstEligible = rs;
        }
        if (rs.active() + rs.inactive() < bound) {
          chosen = rs;
        }
      }
    }
    if (chosen == null) {
      // Everybody eligible is at the bounded-load limit: the key stays where it belongs.
      chosen = firstEligible;
    }
    if (chosen == null) {
      ProxyBackend sorry = p.sorry();
      // Quorum lost (apply installed the sorry server) or overflow (every server drained or over
      // its uthreshold or max_conns): the sorry server answers instead of a refused connection.
      return sorry != null && !sorry.removed() && !sorry.overloaded() ? lease(sorry, null) : null;
    }
    if (persistent) {
      vs.persistence.record(ca, s.netmask(), chosen, timeout, now);
    }
    return lease(chosen, null);
  }
}
