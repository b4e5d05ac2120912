package io.fairway.director.sched;

import io.fairway.director.Backend;
import io.fairway.director.Director;
import io.fairway.director.Member;
import io.fairway.director.Request;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Bounded-load consistent hashing for a director that offers alternatives (Varnish's {@code shard},
 * whose {@code alt} walks the ring to the next distinct server): HAProxy's {@code
 * hash-balance-factor}, Envoy's {@code hash_balance_factor}. A key keeps its server while that
 * server's live load stays under {@code factor% × mean}; otherwise it takes the first alternative
 * that is under the bound. Hot keys can no longer melt one server, at the price of moving some keys
 * while the hot spot lasts.
 *
 * <p>Loads are this director's own: {@link #open} counts a connection, {@link Lease#close} ends it.
 * For mh use {@link Schedulers.Options#hashBalanceFactor()} instead, which works on the servers'
 * kernel counts.
 */
public final class BoundedLoadDirector implements Director {
  private final Director inner;
  private final int factor;
  private final ConcurrentHashMap<Backend, AtomicInteger> loads = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();

  /**
   * @param factorPercent at least 100: 125 lets a server carry 25% more than the mean
   */
  public BoundedLoadDirector(Director inner, int factorPercent) {
    if (factorPercent < 100) {
      throw new IllegalArgumentException(
          "hash_balance_factor " + factorPercent + " must be at least 100");
    }
    this.inner = inner;
    this.factor = factorPercent;
  }

  /** One counted connection; close it when the connection ends. */
  public final class Lease implements AutoCloseable {
    private final Backend backend;
    private boolean closed;

    private Lease(Backend b) {
      backend = b;
    }

    public Backend backend() {
      return backend;
    }

    @Override
    public synchronized void close() {
      if (closed) return;
      closed = true;
      // Every leased backend has a counter: open() creates it and nothing removes it.
      java.util.Objects.requireNonNull(loads.get(backend)).decrementAndGet();
      total.decrementAndGet();
    }
  }

  /**
   * Chooses under the load bound and counts the connection; null when the inner director has
   * nobody.
   */
  public @Nullable Lease open(Request request) {
    Backend b = pick(request);
    if (b == null) return null;
    loads.computeIfAbsent(b, k -> new AtomicInteger()).incrementAndGet();
    total.incrementAndGet();
    return new Lease(b);
  }

  /** The live connection count of a backend. */
  public int load(Backend b) {
    AtomicInteger l = loads.get(b);
    return l == null ? 0 : l.get();
  }

  @Override
  public @Nullable Backend choose(Request request) {
    List<Member> members = inner.members();
    int up = 0;
    for (Member m : members) if (m.healthy()) up++;
    if (up == 0) return inner.pick(request);
    long bound = ((total.get() + 1L) * factor + 100L * up - 1) / (100L * up);
    Backend first = null;
    for (int alt = 0; alt < members.size(); alt++) {
      Backend b = inner.pick(alt == 0 ? request : request.withAlt(alt));
      if (b == null) break;
      if (first == null) first = b;
      if (load(b) < bound) return b;
    }
    return first; // everybody at the bound: keep the key where it belongs
  }

  @Override
  public boolean healthy() {
    return inner.healthy();
  }

  @Override
  public String algorithm() {
    return inner.algorithm();
  }

  @Override
  public List<Member> members() {
    return inner.members();
  }

  @Override
  public String name() {
    return inner.name();
  }
}
