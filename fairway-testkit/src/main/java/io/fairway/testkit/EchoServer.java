package io.fairway.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP backend that greets each connection with its name and a newline, then echoes what
 * it reads until the peer closes; each connection on its own thread.
 */
public final class EchoServer implements AutoCloseable {
  public final String name;
  private final LoopbackServer server;

  /** Connections accepted. */
  public final AtomicInteger accepted;

  /** Connections open now (closed with this server). */
  public final Set<Socket> open;

  /** Starts a backend on a loopback port the kernel picks. */
  public EchoServer(String name) throws IOException {
    this.name = name;
    this.server = new LoopbackServer("echo-" + name, 200, this::serve);
    this.accepted = server.accepted;
    this.open = server.open;
  }

  public int port() {
    return server.port();
  }

  public InetSocketAddress address() {
    return server.address();
  }

  private void serve(Socket s) throws IOException {
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
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
