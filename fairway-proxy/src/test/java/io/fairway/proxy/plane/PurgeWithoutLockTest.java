package io.fairway.proxy.plane;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.net.InetAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The persistence-template purge runs on an event loop every few seconds. The table's operations
 * hold the table's lock while they wait for an event loop (a listener's bind, its close at a soft
 * stop), so a purge that waited for that lock could stop the event loop the operation waits for:
 * {@code fairway run} once hung at SIGTERM that way. The purge must finish while the lock is held.
 */
class PurgeWithoutLockTest {
  @Test
  void purgeFinishesWhileAnotherThreadHoldsTheTableLock() throws Exception {
    ProxyTable t = ProxyTable.tcpOnly();
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      t.addService(
          Service.of(ServiceKey.of(Protocol.TCP, InetAddress.getLoopbackAddress(), 0), "rr"));
      Future<?> purge;
      synchronized (t) {
        purge = other.submit(t::purgeTemplates);
        // Waits for the purge with the lock held, as stopAccepting waits for a listener's close.
        purge.get(10, TimeUnit.SECONDS);
      }
      assertThat(purge).isDone();
    } finally {
      other.shutdownNow();
      t.close();
    }
  }
}
