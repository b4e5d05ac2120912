package io.fairway.proxy.table;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * {@code persistence_timeout}: a client (address masked by the service's netmask) keeps going to
 * the server it was first scheduled to until it has been quiet for the timeout — the kernel's
 * persistence templates, for services with a Varnish director (a kernel scheduler keeps its own in
 * the director library's {@code PersistenceTemplates}).
 *
 * <p>One deliberate difference from the kernel default ({@code expire_quiescent_template=0}): a
 * template pointing at a drained (weight 0) or removed server is not honoured, because an operator
 * who drains a server means "no new connections", persistent clients included.
 */
final class DirectorPersistence {
  private static final class Template {
    final ProxyBackend server;
    volatile long expiresNanos;

    Template(ProxyBackend server, long expiresNanos) {
      this.server = server;
      this.expiresNanos = expiresNanos;
    }
  }

  private final Map<InetAddress, Template> templates = new ConcurrentHashMap<>();

  /** The server this client sticks to, or {@code null}; refreshes the template when found. */
  @Nullable ProxyBackend lookup(InetAddress client, int prefix, long timeoutNanos, long now) {
    Template t = templates.get(mask(client, prefix));
    if (t == null || now - t.expiresNanos > 0) {
      return null;
    }
    ProxyBackend rs = t.server;
    if (rs.removed() || rs.weight() == 0) {
      return null;
    }
    t.expiresNanos = now + timeoutNanos;
    return rs;
  }

  void record(InetAddress client, int prefix, ProxyBackend rs, long timeoutNanos, long now) {
    Template fresh = new Template(rs, now + timeoutNanos);
    Template old = templates.put(mask(client, prefix), fresh);
    rs.persistent.incrementAndGet();
    if (old != null) {
      old.server.persistent.decrementAndGet();
    }
  }

  /** Drops expired templates so the map does not grow with every client ever seen. */
  void purge(long now) {
    templates
        .entrySet()
        .removeIf(
            e -> {
              Template t = e.getValue();
              if (now - t.expiresNanos > 0 || t.server.removed()) {
                t.server.persistent.decrementAndGet();
                return true;
              }
              return false;
            });
  }

  void clear() {
    templates
        .values()
        .removeIf(
            t -> {
              t.server.persistent.decrementAndGet();
              return true;
            });
  }

  static InetAddress mask(InetAddress a, int prefix) {
    byte[] b = a.getAddress();
    int bits = b.length * 8;
    if (prefix >= bits) {
      return a;
    }
    for (int i = 0; i < b.length; i++) {
      int keep = Math.max(0, Math.min(8, prefix - i * 8));
      b[i] &= (byte) (0xff << (8 - keep));
    }
    try {
      return InetAddress.getByAddress(b);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
