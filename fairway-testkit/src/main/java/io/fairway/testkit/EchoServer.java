package io.fairway.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP backend that greets each connection with its name and a newline, then echoes what
 * it reads until the peer closes; each connection on its own thread.
 */
public final class EchoServer implements AutoCloseable {
  public final String name;
  private final ServerSocket server;

  /** Connections accepted. */
  public final AtomicInteger accepted = new AtomicInteger();

  /** Connections open now (closed with this server). */
  public final Set<Socket> open = ConcurrentHashMap.newKeySet();

  /** Starts a backend on a loopback port the kernel picks. */
  public EchoServer(String name) throws IOException {
    this.name = name;
    this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::acceptLoop, "echo-" + name);
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
        Thread t = new Thread(() -> serve(s), "echo-conn-" + name);
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      OutputStream out = s.getOutputStream();
      out.write((name + "\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[8192];
      int n;
      while ((n = in.read(buf)) > 0) {
        out.write(buf, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // the test closed it
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
