package io.fairway.proxy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A raw-socket HTTP backend that switches protocols: it answers a request with {@code Upgrade} with
 * a 101 and {@code HELLO} in the same write, then echoes every byte it gets; on the client's FIN it
 * sends {@code <eof>} and closes; on {@code QUIT} it closes at once, on {@code BIG} it sends {@link
 * #BIG} zero bytes instead of the echo. When {@code refuse} is set it answers every request with a
 * keep-alive {@code 200 no} instead.
 */
final class UpgradeBackend implements AutoCloseable {
  static final int BIG = 16 << 20;
  private final ServerSocket server = new ServerSocket(0, 50, Fixtures.LO);
  private final boolean refuse;

  /** Request heads as received, and the bodies read after them ("" when none). */
  final List<String> heads = new CopyOnWriteArrayList<>();

  final List<String> bodies = new CopyOnWriteArrayList<>();

  /** Requests whose Content-Length body arrived whole. */
  final AtomicInteger completeRequests = new AtomicInteger();

  final AtomicInteger connections = new AtomicInteger();

  /** Counted down when a tunnel's client side ends (EOF or error). */
  final CountDownLatch tunnelEnded = new CountDownLatch(1);

  UpgradeBackend(boolean refuse) throws IOException {
    this.refuse = refuse;
    Thread t =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try {
                  Socket s = server.accept();
                  connections.incrementAndGet();
                  Thread c = new Thread(() -> serve(s), "upgrade-backend-conn");
                  c.setDaemon(true);
                  c.start();
                } catch (IOException e) {
                  return;
                }
              }
            },
            "upgrade-backend");
    t.setDaemon(true);
    t.start();
  }

  InetSocketAddress address() {
    return new InetSocketAddress(Fixtures.LO, server.getLocalPort());
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      while (true) {
        String head = readHead(in);
        if (head == null) {
          return;
        }
        heads.add(head);
        Matcher m = Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
        String body = "";
        if (m.find()) {
          int len = Integer.parseInt(m.group(1));
          byte[] b = in.readNBytes(len);
          body = new String(b, StandardCharsets.ISO_8859_1);
          if (b.length < len) {
            bodies.add(body);
            return; // cut short
          }
        }
        if (head.toLowerCase(Locale.ROOT).contains("\r\ntransfer-encoding: chunked\r\n")) {
          // Enough for the tests: the body is read up to its last chunk (no trailers).
          StringBuilder chunks = new StringBuilder();
          int c;
          while (!chunks.toString().endsWith("0\r\n\r\n") && (c = in.read()) >= 0) {
            chunks.append((char) c);
          }
          body = chunks.toString();
        }
        bodies.add(body);
        completeRequests.incrementAndGet();
        if (!refuse && head.toLowerCase(Locale.ROOT).contains("\r\nupgrade:")) {
          out.write(
              "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nHELLO"
                  .getBytes(StandardCharsets.ISO_8859_1));
          out.flush();
          echo(in, out);
          return;
        }
        out.write(
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno".getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
      }
    } catch (IOException e) {
      // the proxy went away
    }
  }

  private void echo(InputStream in, OutputStream out) throws IOException {
    byte[] buf = new byte[65536];
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    try {
      int n;
      while ((n = in.read(buf)) > 0) {
        seen.write(buf, 0, n);
        if (seen.toString(StandardCharsets.ISO_8859_1).endsWith("QUIT")) {
          return; // closes without a word
        }
        if (seen.toString(StandardCharsets.ISO_8859_1).endsWith("BIG")) {
          out.write(new byte[BIG]); // a download far larger than the socket buffers
          continue;
        }
        out.write(buf, 0, n);
        out.flush();
      }
      out.write("<eof>".getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
    } finally {
      tunnelEnded.countDown();
    }
  }

  /** Reads up to and including the blank line; {@code null} at EOF before one. */
  static String readHead(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    int c;
    while (!head.toString().endsWith("\r\n\r\n")) {
      if ((c = in.read()) < 0) {
        return null;
      }
      head.append((char) c);
    }
    return head.toString();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
