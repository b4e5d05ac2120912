package io.fairway.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP server on loopback with a thread per connection: the accept loop, the connections open now
 * and closing them all with the server, for the test backends that differ only in what they do with
 * a connection.
 */
public final class LoopbackServer implements AutoCloseable {
  /** What a backend does with one connection; the server closes it afterwards. */
  @FunctionalInterface
  public interface Handler {
    void serve(Socket s) throws IOException;
  }

  private final ServerSocket server;
  private final String name;
  private final Handler handler;

  /** Connections accepted. */
  public final AtomicInteger accepted = new AtomicInteger();

  /** Connections open now (closed with this server). */
  public final Set<Socket> open = ConcurrentHashMap.newKeySet();

  /** Starts serving on a loopback port the kernel picks; {@code name} names its threads. */
  public LoopbackServer(String name, int backlog, Handler handler) throws IOException {
    this.name = name;
    this.handler = handler;
    this.server = new ServerSocket(0, backlog, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::acceptLoop, name);
    t.setDaemon(true);
    t.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), port());
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        accepted.incrementAndGet();
        open.add(s);
        Thread t = new Thread(() -> serve(s), name + "-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      handler.serve(s);
    } catch (IOException | RuntimeException e) {
      // the test closed it, or sent what this backend does not take
    } finally {
      open.remove(s);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      s.close();
    }
  }
}
