package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.HttpBackend;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Clients that shut down their sending side (shutdown(SHUT_WR), as {@code nc -N} and many HTTP/1.0
 * clients do) over real loopback sockets: answered when their requests were complete, closed
 * without a word when not.
 */
class HttpHalfCloseTest {
  @AutoClose final Cleanup cleanup = new Cleanup();

  private InetSocketAddress serve(InetSocketAddress... backends) throws Exception {
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder().ioThreads(1).build(),
                k -> ListenerSpec.http(RequestKey.CLIENT)));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    for (InetSocketAddress b : backends) {
      t.addDest(k, dest(b, 1));
    }
    return t.boundAddress(k);
  }

  /** Sends {@code request}, shuts down the sending side, reads until the proxy closes. */
  static String sendThenFin(InetSocketAddress vip, String request, long pauseBeforeReadingMs)
      throws Exception {
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(5000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      s.shutdownOutput();
      if (pauseBeforeReadingMs > 0) {
        Thread.sleep(pauseBeforeReadingMs);
      }
      return readToClose(s.getInputStream());
    }
  }

  static String readToClose(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[65536];
    try {
      int n;
      while ((n = in.read(buf)) > 0) {
        out.write(buf, 0, n);
      }
    } catch (SocketTimeoutException e) {
      out.write("<timeout>".getBytes(StandardCharsets.US_ASCII));
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void requestThenFinGetsItsAnswerThenTheClose() throws Exception {
    HttpBackend b = cleanup.track(new HttpBackend("b1"));
    InetSocketAddress vip = serve(b.address());
    assertThat(sendThenFin(vip, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0))
        .startsWith("HTTP/1.1 200")
        .endsWith("\r\n\r\nb1");
    // An HTTP/1.0 client doing the same.
    assertThat(sendThenFin(vip, "GET / HTTP/1.0\r\n\r\n", 0))
        .startsWith("HTTP/1.1 200")
        .endsWith("\r\n\r\nb1");
    assertThat(b.requests.get()).isEqualTo(2);
  }

  @Test
  void pipelinedRequestsSentBeforeTheFinAreAllAnsweredInOrder() throws Exception {
    HttpBackend b = cleanup.track(new HttpBackend("b1"));
    InetSocketAddress vip = serve(b.address());
    String r =
        sendThenFin(
            vip,
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none"
                + "GET /slow?ms=100 HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\ntwo",
            0);
    assertThat(count(r, "HTTP/1.1 200")).isEqualTo(3);
    assertThat(r).doesNotContain("<timeout>");
    assertThat(r.indexOf("\r\n\r\none")).isLessThan(r.indexOf("\r\n\r\nb1")).isPositive();
    assertThat(r.indexOf("\r\n\r\nb1")).isLessThan(r.indexOf("\r\n\r\ntwo"));
    assertThat(r).endsWith("two");
  }

  @Test
  void finInTheMiddleOfAHeadClosesWithoutAskingABackend() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(true));
    InetSocketAddress vip = serve(b.address());
    assertThat(sendThenFin(vip, "GET / HTTP/1.1\r\nHost: x\r\n", 0)).isEmpty();
    assertThat(sendThenFin(vip, "GET / HTT", 0)).isEmpty();
    // A whole request after them: the backend accepts in order, so once this one has its
    // connection, one asked for by either of the first two would be there too.
    assertThat(sendThenFin(vip, "GET /after HTTP/1.1\r\nHost: x\r\n\r\n", 0)).endsWith("no");
    assertThat(b.connections.get()).isEqualTo(1);
    assertThat(b.heads).singleElement().asString().startsWith("GET /after ");
  }

  @Test
  void finInTheMiddleOfABodyClosesAndTheBackendNeverGetsARequestWhole() throws Exception {
    UpgradeBackend b = cleanup.track(new UpgradeBackend(true));
    InetSocketAddress vip = serve(b.address());
    assertThat(sendThenFin(vip, "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc", 0))
        .isEmpty();
    // A complete request, then an incomplete pipelined one: the first is answered, the second
    // dropped.
    String r =
        sendThenFin(
            vip,
            "GET /one HTTP/1.1\r\nHost: x\r\n\r\nPOST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
            0);
    assertThat(r).isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nno");
    int connections = b.connections.get(); // /one's is among them: it was answered
    // The next request goes out on the pooled backend connection /one used, behind anything
    // sent on it before: had any of /two gone out, that connection would not be reusable.
    assertThat(sendThenFin(vip, "GET /three HTTP/1.1\r\nHost: x\r\n\r\n", 0)).endsWith("no");
    assertThat(b.connections.get()).as("backend connections").isEqualTo(connections);
    assertThat(b.completeRequests.get()).as("complete requests the backend got").isEqualTo(2);
    assertThat(b.heads).noneMatch(h -> h.startsWith("POST /two"));
  }

  @Test
  void halfClosedSlowReaderGetsAWholeLargeResponse() throws Exception {
    HttpBackend b = cleanup.track(new HttpBackend("b1"));
    InetSocketAddress vip = serve(b.address());
    // 16 MiB: far more than the socket buffers, so the proxy has to wait for the client to read
    // while the client sends nothing more.
    String r = sendThenFin(vip, "GET /big?kb=16384 HTTP/1.1\r\nHost: x\r\n\r\n", 1500);
    Matcher m = Pattern.compile("(?i)content-length: (\\d+)").matcher(r);
    assertThat(m.find()).isTrue();
    assertThat(m.group(1)).isEqualTo(String.valueOf(16384 * 1024));
    assertThat(r.length() - r.indexOf("\r\n\r\n") - 4).isEqualTo(16384 * 1024);
  }

  @Test
  void againstNginx() throws Exception {
    Nginx.require();
    Nginx n = cleanup.track(new Nginx("n1"));
    InetSocketAddress vip = serve(n.address());
    assertThat(
            sendThenFin(
                vip, "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n", 0))
        .startsWith("HTTP/1.1 200")
        .endsWith("n1")
        .satisfies(r -> assertThat(count(r, "HTTP/1.1 200")).isEqualTo(2));
    assertThat(sendThenFin(vip, "GET / HTTP/1.0\r\n\r\n", 0))
        .startsWith("HTTP/1.1 200")
        .endsWith("\r\n\r\nn1");
  }

  static int count(String s, String what) {
    int n = 0;
    for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
      n++;
    }
    return n;
  }
}
