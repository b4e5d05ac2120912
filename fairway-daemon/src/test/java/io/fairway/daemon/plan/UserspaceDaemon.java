package io.fairway.daemon.plan;

import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.Daemon;
import io.fairway.daemon.KeepalivedLoader;
import io.fairway.plan.ServicePlan;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.table.ServiceKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/** {@code fairway run --userspace} in this JVM: the daemon, its loader and the proxy table. */
final class UserspaceDaemon implements AutoCloseable {
  final Path file;
  final ProxyTable table;
  final Daemon daemon;

  UserspaceDaemon(Path file, String conf) throws Exception {
    this.file = file;
    Files.writeString(file, conf);
    table = new ProxyTable(ProxyOptions.builder().ioThreads(2).build(), null);
    daemon =
        new Daemon(
            file,
            new KeepalivedLoader(true, CheckSpecs::from),
            table,
            CheckEngine::builder,
            Duration.ZERO,
            Clock.systemUTC());
    daemon.start();
  }

  /** Rewrites the file and reloads; the reason when refused, else null. */
  String reload(String conf) throws IOException {
    Files.writeString(file, conf);
    return daemon.reload();
  }

  ServicePlan plan(String vs) {
    return daemon.plan().service(vs).orElseThrow();
  }

  /** The port the service's listener is bound to. */
  int port(String vs) {
    ServiceKey k = plan(vs).services().get(0).key();
    return table.boundAddress(k).getPort();
  }

  static int freePort() throws IOException {
    return io.fairway.testkit.FreePorts.loopback();
  }

  @Override
  public void close() throws io.fairway.table.TableException {
    daemon.stop();
    table.close();
  }
}
