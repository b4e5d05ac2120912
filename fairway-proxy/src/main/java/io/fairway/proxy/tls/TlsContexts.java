package io.fairway.proxy.tls;

import io.fairway.config.model.TlsSettings;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The built contexts of every TLS setting the running plan uses. A plan's settings are built when
 * the plan is checked ({@link #prepare}, on the loading thread, never an event loop); the ones it
 * no longer uses are released when the next plan is in place ({@link #retain}). Connections look
 * theirs up when accepted, so a swap affects only new handshakes.
 */
public final class TlsContexts {
  /** A setting and the mode it is served in (ALPN differs between HTTP and L4). */
  private record Key(TlsSettings settings, boolean http) {}

  private volatile Map<Key, ServerTls> built = Map.of();
  private final TlsStats stats = new TlsStats();

  public TlsStats stats() {
    return stats;
  }

  /** Builds what is not built yet; nothing serves it until {@link #retain}. */
  public synchronized void prepare(TlsSettings s, boolean http) throws ServerTls.TlsException {
    if (!s.enabled() || built.containsKey(new Key(s, http))) {
      return;
    }
    Map<Key, ServerTls> next = new HashMap<>(built);
    next.put(new Key(s, http), ServerTls.build(s, http));
    built = Map.copyOf(next);
  }

  /** The contexts of a setting, building them here if no plan check did. */
  public ServerTls get(TlsSettings s, boolean http) throws ServerTls.TlsException {
    ServerTls t = built.get(new Key(s, http));
    if (t == null) {
      prepare(s, http);
      t = built.get(new Key(s, http));
    }
    return Objects.requireNonNull(t, "prepare built it");
  }

  /** Keeps the contexts of these settings and releases the others. */
  public synchronized void retain(java.util.Collection<Map.Entry<TlsSettings, Boolean>> inUse) {
    Map<Key, ServerTls> next = new HashMap<>();
    for (Map.Entry<TlsSettings, Boolean> e : inUse) {
      Key k = new Key(e.getKey(), e.getValue());
      ServerTls t = built.get(k);
      if (t != null) {
        next.put(k, t);
      }
    }
    Map<Key, ServerTls> old = built;
    built = Map.copyOf(next);
    old.forEach(
        (k, t) -> {
          if (!next.containsKey(k)) {
            t.release();
          }
        });
  }
}
