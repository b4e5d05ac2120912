package io.fairway.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP backend that answers one request per connection claiming keep-alive, then reads the next
 * request and closes without answering: the race every proxy with a connection pool meets when a
 * backend's keep-alive timer fires.
 */
final class RudeBackend implements AutoCloseable {
  private final ServerSocket server;
  final AtomicInteger connections = new AtomicInteger();
  final AtomicInteger swallowed = new AtomicInteger();

  RudeBackend() throws IOException {
    server = new ServerSocket(0, 50, Fixtures.LO);
    Thread t = new Thread(this::loop, "rude-backend");
    t.setDaemon(true);
    t.start();
  }

  InetSocketAddress address() {
    return new InetSocketAddress(Fixtures.LO, server.getLocalPort());
  }

  private void loop() {
    while (!server.isClosed()) {
      try (Socket s = server.accept()) {
        connections.incrementAndGet();
        InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        int c;
        while (!head.toString().endsWith("\r\n\r\n") && (c = in.read()) >= 0) {
          head.append((char) c);
        }
        s.getOutputStream()
            .write(
                "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: keep-alive\r\n\r\nrude"
                    .getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        // Swallow the next request on this connection and close without answering.
        head.setLength(0);
        while (!head.toString().endsWith("\r\n\r\n") && (c = in.read()) >= 0) {
          head.append((char) c);
        }
        if (head.length() > 0) {
          swallowed.incrementAndGet();
        }
      } catch (IOException e) {
        // next
      }
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
