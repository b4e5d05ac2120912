package io.fairway.proxy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback backend that serves at most {@code capacity} connections at once and closes any
 * further one the moment it accepts it, without a byte, as nginx does out of {@code
 * worker_connections}. A served connection answers each line with {@code pong} after {@code
 * holdMillis}, until its client closes.
 */
final class CapacityServer implements AutoCloseable {
  private final ServerSocket server;
  private final int capacity;
  private final long holdMillis;
  private final ExecutorService threads = Executors.newCachedThreadPool();

  /** Connections being served now, and the most at once. */
  private final AtomicInteger serving = new AtomicInteger();

  final AtomicInteger mostServedAtOnce = new AtomicInteger();

  /** Connections closed unserved because it was full. */
  final AtomicInteger refused = new AtomicInteger();

  final AtomicInteger served = new AtomicInteger();

  CapacityServer(int capacity, long holdMillis) throws IOException {
    this.capacity = capacity;
    this.holdMillis = holdMillis;
    this.server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
    threads.execute(this::acceptLoop);
  }

  InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        return;
      }
      int now = serving.incrementAndGet();
      if (now > capacity) {
        serving.decrementAndGet();
        refused.incrementAndGet();
        closeQuietly(s);
        continue;
      }
      mostServedAtOnce.accumulateAndGet(now, Math::max);
      threads.execute(() -> serve(s));
    }
  }

  private void serve(Socket s) {
    try (s) {
      BufferedReader in =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      OutputStream out = s.getOutputStream();
      while (in.readLine() != null) {
        Thread.sleep(holdMillis); // the work a request costs, not synchronisation
        out.write("pong\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        served.incrementAndGet();
      }
    } catch (IOException e) {
      // the client went away
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      serving.decrementAndGet();
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // nothing to do
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    threads.shutdownNow();
  }
}
