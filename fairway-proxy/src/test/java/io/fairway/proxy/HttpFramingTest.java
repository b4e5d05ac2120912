package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the proxy frames responses between backends and clients of different HTTP versions, against a
 * scripted backend that sends exactly the bytes a test chooses.
 */
class HttpFramingTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  /** Answers every request with {@code reply}; closes after it when {@code close}. */
  static final class Scripted implements AutoCloseable {
    final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    final List<String> requests = new CopyOnWriteArrayList<>();

    Scripted(String reply, boolean close) throws IOException {
      Thread t =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    Socket s = server.accept();
                    Thread c = new Thread(() -> serve(s, reply, close));
                    c.setDaemon(true);
                    c.start();
                  } catch (IOException e) {
                    return;
                  }
                }
              });
      t.setDaemon(true);
      t.start();
    }

    private void serve(Socket s, String reply, boolean close) {
      try (s) {
        InputStream in = s.getInputStream();
        while (true) {
          StringBuilder head = new StringBuilder();
          int c;
          while (!head.toString().endsWith("\r\n\r\n") && (c = in.read()) >= 0) {
            head.append((char) c);
          }
          if (!head.toString().endsWith("\r\n\r\n")) {
            return;
          }
          java.util.regex.Matcher m =
              java.util.regex.Pattern.compile("(?i)content-length: (\\d+)").matcher(head);
          if (m.find()) {
            in.readNBytes(Integer.parseInt(m.group(1)));
          }
          requests.add(head.toString());
          s.getOutputStream().write(reply.getBytes(StandardCharsets.ISO_8859_1));
          s.getOutputStream().flush();
          if (close) {
            return;
          }
        }
      } catch (IOException e) {
        // the proxy went away
      }
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  private InetSocketAddress proxyTo(Scripted backend) throws Exception {
    closeables.add(0, backend);
    ProxyTable t =
        new ProxyTable(
            ProxyOptions.builder().ioThreads(1).build(), k -> ListenerSpec.http(RequestKey.CLIENT));
    closeables.add(0, t);
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(backend.address(), 1));
    return t.boundAddress(k);
  }

  /**
   * Sends the bytes and reads what comes back, ending with {@code <closed>} if the proxy closes.
   * With {@code expectOpen}, reading stops once that many bytes have come (more than that would be
   * a framing error either way) and the connection must then stay quiet and open for {@link
   * #QUIET}: {@code <open>}, or {@code <closed>} if it closes. (A short window: a loaded machine
   * can only make a close or stray bytes come later, never sooner.) Otherwise it reads until the
   * close, bounded by the socket's timeout.
   */
  private static String exchange(InetSocketAddress vip, String request, String expectOpen)
      throws IOException {
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(30_000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
      int want = expectOpen == null ? Integer.MAX_VALUE : expectOpen.length();
      try {
        int n;
        while (out.size() < want
            && (n = in.read(buf, 0, Math.min(buf.length, want - out.size()))) > 0) {
          out.write(buf, 0, n);
        }
        if (out.size() >= want) {
          s.setSoTimeout((int) QUIET.toMillis());
          while ((n = in.read(buf)) > 0) {
            out.write(buf, 0, n);
          }
        }
        out.write("<closed>".getBytes(StandardCharsets.US_ASCII));
      } catch (SocketTimeoutException e) {
        out.write("<open>".getBytes(StandardCharsets.US_ASCII));
      }
      return out.toString(StandardCharsets.ISO_8859_1);
    }
  }

  /** The exchange of a response the proxy ends by closing. */
  private static String exchange(InetSocketAddress vip, String request) throws IOException {
    return exchange(vip, request, null);
  }

  private static final java.time.Duration QUIET = java.time.Duration.ofMillis(300);

  @Test
  void chunkedResponseReachesAnHttp10ClientAsPlainBytesEndedByTheClose() throws Exception {
    InetSocketAddress vip =
        proxyTo(
            new Scripted(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
                false));
    String r = exchange(vip, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    assertThat(r)
        .startsWith("HTTP/1.1 200 OK\r\n")
        .contains("Connection: close\r\n")
        .doesNotContainIgnoringCase("transfer-encoding")
        .endsWith("\r\n\r\nhello world<closed>");
  }

  @Test
  void closeDelimitedResponseIsChunkedForAnHttp11ClientThatStaysConnected() throws Exception {
    Scripted b = new Scripted("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nstream", true);
    InetSocketAddress vip = proxyTo(b);
    String one = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nstream\r\n0\r\n\r\n";
    String r =
        exchange(
            vip, "GET /1 HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n", one + one);
    assertThat(r).isEqualTo(one + one + "<open>");
    assertThat(b.requests).hasSize(2);
    assertThat(b.requests.get(0)).startsWith("GET /1 HTTP/1.1\r\n");
  }

  @Test
  void interimResponsesPassToHttp11ClientsOnly() throws Exception {
    InetSocketAddress vip =
        proxyTo(
            new Scripted(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                false));
    String interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    assertThat(exchange(vip, "GET / HTTP/1.1\r\nHost: h\r\n\r\n", interim))
        .isEqualTo(interim + "<open>");
    assertThat(exchange(vip, "GET / HTTP/1.0\r\n\r\n"))
        .isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok<closed>");
  }

  @Test
  void headAndNoContentResponsesHaveNoBodyWhateverTheyAnnounce() throws Exception {
    InetSocketAddress vip =
        proxyTo(new Scripted("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false));
    String head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    assertThat(
            exchange(
                vip,
                "HEAD / HTTP/1.1\r\nHost: h\r\n\r\nHEAD / HTTP/1.1\r\nHost: h\r\n\r\n",
                head + head))
        .isEqualTo(head + head + "<open>");
    vip = proxyTo(new Scripted("HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n", false));
    String nc = "HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n";
    assertThat(
            exchange(
                vip,
                "DELETE /x HTTP/1.1\r\nHost: h\r\n\r\nDELETE /y HTTP/1.1\r\nHost: h\r\n\r\n",
                nc + nc))
        .isEqualTo(nc + nc + "<open>");
  }

  @Test
  void pipelinedRequestsAreAnsweredInOrderAndForwardedRewritten() throws Exception {
    Scripted b = new Scripted("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", false);
    InetSocketAddress vip = proxyTo(b);
    String r =
        exchange(
            vip,
            "GET /a HTTP/1.1\r\nHost: h\r\n\r\nPOST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcGET /c HTTP/1.0\r\nHost: h\r\n\r\n");
    String ok = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
    assertThat(r)
        .isEqualTo(
            ok + ok + "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx<closed>");
    assertThat(b.requests)
        .extracting(s -> s.substring(0, s.indexOf('\r')))
        .containsExactly("GET /a HTTP/1.1", "POST /b HTTP/1.1", "GET /c HTTP/1.1");
    assertThat(b.requests.get(0))
        .isEqualTo(
            "GET /a HTTP/1.1\r\nHost: h\r\nX-Forwarded-For: 127.0.0.1\r\nX-Forwarded-Proto: http\r\n\r\n");
  }

  @Test
  void anExchangeWithNoTrafficEitherWayIsClosedAfterTheIdleTimeout() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      ProxyTable t =
          new ProxyTable(
              ProxyOptions.builder()
                  .ioThreads(1)
                  .idleTimeout(java.time.Duration.ofMillis(800))
                  .build(),
              k -> ListenerSpec.http(RequestKey.CLIENT));
      closeables.add(0, t);
      ServiceKey k = anyPort();
      t.addService(Service.of(k, "rr"));
      t.addDest(
          k,
          dest(new InetSocketAddress(InetAddress.getLoopbackAddress(), silent.getLocalPort()), 1));
      try (Socket s = new Socket()) {
        s.connect(t.boundAddress(k), 2000);
        s.setSoTimeout(5000);
        long start = System.nanoTime();
        s.getOutputStream()
            .write("GET / HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(s.getInputStream().read()).as("closed without a response").isEqualTo(-1);
        assertThat((System.nanoTime() - start) / 1_000_000).isBetween(700L, 4000L);
      }
    }
  }

  @Test
  void malformedResponseIs502() throws Exception {
    InetSocketAddress vip =
        proxyTo(
            new Scripted(
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok", false));
    assertThat(exchange(vip, "GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        .startsWith("HTTP/1.1 502 Bad Gateway\r\n")
        .endsWith("<closed>");
  }
}
