package io.fairway.director.sched;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The kernel's persistence templates (ip_vs_core.c {@code ip_vs_sched_persist}, ip_vs_conn.c): one
 * template per masked client address, pointing at the server the client's first connection got.
 *
 * <p>Expiry follows the kernel's timer: a template is refreshed to {@code timeout} on every new
 * connection it controls; when the timer fires while connections it controls are still alive it is
 * re-armed for another {@code timeout}. So a client keeps its server for as long as it has
 * connections, plus up to two timeouts. A template whose server has left the service (or, with
 * {@code expire_quiescent_template}, was set to weight 0) is dropped at the next lookup and the
 * client is scheduled afresh; an <em>overloaded</em> server keeps its sticky clients, as in the
 * kernel.
 */
final class PersistenceTemplates {
  private final Persistence config;
  private final Map<Key, Template> templates = new HashMap<>();

  PersistenceTemplates(Persistence config) {
    this.config = config;
  }

  /** A masked client address, compared by content. */
  static final class Key {
    private final byte[] masked;

    Key(byte[] masked) {
      this.masked = masked;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && Arrays.equals(masked, k.masked);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(masked);
    }
  }

  static final class Template {
    final Key key;
    final SchedDest dest;
    long deadline;
    int controlled;
    long lastRelease;

    Template(Key key, SchedDest dest, long deadline) {
      this.key = key;
      this.dest = dest;
      this.deadline = deadline;
    }
  }

  Key key(InetAddress client) {
    byte[] a = client.getAddress();
    if (client instanceof Inet4Address) {
      int m = config.ipv4Mask();
      for (int i = 0; i < 4; i++) a[i] &= (byte) (m >>> (24 - 8 * i));
    } else {
      int prefix = config.ipv6PrefixLength();
      for (int i = 0; i < 16; i++) {
        int bits = Math.max(0, Math.min(8, prefix - 8 * i));
        a[i] &= (byte) (0xff << (8 - bits));
      }
    }
    return new Key(a);
  }

  /** A valid template for this client, or null (expired ones are dropped on the way). */
  synchronized @Nullable Template lookup(Key key, long now) {
    Template t = templates.get(key);
    if (t == null) return null;
    if (expired(t, now)
        || !t.dest.available()
        || (config.expireQuiescentTemplate() && t.dest.weight() == 0)) {
      drop(t);
      return null;
    }
    return t;
  }

  private boolean expired(Template t, long now) {
    long timeout = config.timeoutMillis();
    if (now < t.deadline) return false;
    if (t.controlled > 0) {
      // The timer fired while connections were alive: re-armed, as often as needed to reach now.
      long periods = (now - t.deadline) / timeout + 1;
      t.deadline += periods * timeout;
      return false;
    }
    // The first timer tick after the last controlled connection ended removes the template.
    long firstTickAfterRelease = t.deadline;
    if (t.lastRelease > t.deadline) {
      long periods = (t.lastRelease - t.deadline + timeout - 1) / timeout;
      firstTickAfterRelease = t.deadline + periods * timeout;
    }
    if (now >= firstTickAfterRelease) return true;
    t.deadline = firstTickAfterRelease;
    return false;
  }

  private void drop(Template t) {
    templates.remove(t.key);
    t.dest.unbind(SchedDest.ConnKind.TEMPLATE);
  }

  synchronized Template create(Key key, SchedDest dest, long now) {
    Template t = new Template(key, dest, now + config.timeoutMillis());
    templates.put(key, t);
    dest.bind(SchedDest.ConnKind.TEMPLATE);
    return t;
  }

  /**
   * A new connection controlled by this template: the kernel's {@code ip_vs_conn_put(ct)} refreshes
   * the timer.
   */
  synchronized void use(Template t, long now) {
    t.controlled++;
    t.deadline = now + config.timeoutMillis();
  }

  synchronized void release(Template t, long now) {
    t.controlled--;
    t.lastRelease = now;
  }

  /**
   * Drops every template that has expired by {@code now}; the data plane calls this periodically.
   */
  synchronized int sweep(long now) {
    int n = 0;
    for (Template t : templates.values().toArray(new Template[0])) {
      if (expired(t, now) || !t.dest.available()) {
        drop(t);
        n++;
      }
    }
    return n;
  }

  synchronized int size() {
    return templates.size();
  }
}
