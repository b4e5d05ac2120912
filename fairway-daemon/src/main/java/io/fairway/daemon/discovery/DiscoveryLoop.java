package io.fairway.daemon.discovery;

import io.fairway.config.model.Config;
import io.fairway.config.model.VirtualServer;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves the running file's {@code real_server_dns} blocks every {@code refresh} (sooner when a
 * TTL says so) and asks for a reload when the servers they stand for changed. The reload is the
 * SIGHUP one: the file is read again, expanded with the kept answers ({@link #expand}) and applied
 * by difference, so discovered servers are checked, ramped and drained like written ones.
 */
public final class DiscoveryLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DiscoveryLoop.class);

  private final DnsResolver resolver = new DnsResolver(Duration.ofSeconds(5));
  private final Discovery discovery = new Discovery(resolver, Clock.systemUTC());
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "fairway-dns-discovery");
            t.setDaemon(true);
            return t;
          });
  private volatile @Nullable Config parsed;
  private volatile Runnable reload = () -> {};

  /** The blocks' last resolutions. */
  public Discovery discovery() {
    return discovery;
  }

  /** The model to run for the file's: the loader's hook, called on every load. */
  public Config expand(Config fromFile) {
    parsed = fromFile;
    return discovery.expand(fromFile);
  }

  /** Starts resolving (now, then periodically); {@code reload} is called when an answer changed. */
  public void start(Runnable reload) {
    this.reload = reload;
    timer.execute(this::tick);
  }

  private void tick() {
    Config c = parsed;
    if (c == null || c.virtualServers().stream().allMatch(this::noBlocks)) {
      timer.schedule(this::tick, 5, TimeUnit.SECONDS);
      return;
    }
    try {
      if (discovery.refresh(c).get(60, TimeUnit.SECONDS)) {
        LOG.info("real_server_dns: the answers changed; reloading");
        reload.run();
      }
    } catch (InterruptedException e) {
      // close() stops the timer while a resolution is awaited: the daemon is stopping.
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      LOG.warn("real_server_dns: resolution failed: {}", e.toString());
    }
    timer.schedule(this::tick, discovery.nextRefresh(c).toMillis(), TimeUnit.MILLISECONDS);
  }

  private boolean noBlocks(VirtualServer vs) {
    return vs.discovery().isEmpty();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    resolver.close();
  }
}
