package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.config.model.ProxySettings;
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
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Requests a hostile or broken client sends, end to end through the proxy to real backends. */
class HttpHostileClientTest {
  @AutoClose final Cleanup cleanup = new Cleanup();
  private HttpBackend b1;

  @BeforeEach
  void backend() throws IOException {
    b1 = cleanup.track(new HttpBackend("b1"));
  }

  private InetSocketAddress serve(ListenerSpec spec, InetSocketAddress backend) throws Exception {
    ProxyTable t =
        cleanup.track(new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> spec));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(backend, 1));
    return t.boundAddress(k);
  }

  /** Sends raw bytes and reads until the proxy closes, or {@code <timeout>} after 3 s. */
  static String raw(InetSocketAddress vip, String request) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(3000);
      s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
      s.getOutputStream().flush();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
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
  }

  @Test
  void aClientCannotRemoveXForwardedFor() throws Exception {
    InetSocketAddress vip = serve(ListenerSpec.http(RequestKey.CLIENT), b1.address());
    String resp =
        raw(
            vip,
            "GET /headers HTTP/1.1\r\nHost: x\r\nConnection: close, X-Forwarded-For, X-Forwarded-Proto\r\n"
                + "X-Forwarded-Proto: https\r\n\r\n");
    assertThat(resp)
        .startsWith("HTTP/1.1 200")
        .contains("x-forwarded-for: 127.0.0.1\n")
        .contains("x-forwarded-proto: http\n");
  }

  @Test
  void forwardedIsSentWhenTheServiceAsksForIt() throws Exception {
    InetSocketAddress vip =
        serve(
            ListenerSpec.http(RequestKey.CLIENT)
                .withProxy(new ProxySettings(ProxySettings.Timeouts.NONE, true)),
            b1.address());
    assertThat(
            raw(
                vip,
                "GET /headers HTTP/1.1\r\nHost: x\r\nConnection: close, Forwarded\r\nForwarded: for=10.6.6.6\r\n\r\n"))
        .contains("forwarded: for=127.0.0.1;proto=http\n");
  }

  @Test
  void http11WithoutHostIs400AndReachesNoBackend() throws Exception {
    InetSocketAddress vip = serve(ListenerSpec.http(RequestKey.CLIENT), b1.address());
    assertThat(raw(vip, "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n"))
        .startsWith("HTTP/1.1 400")
        .doesNotContain("<timeout>");
    assertThat(b1.requests).hasValue(0);
    // HTTP/1.0 may omit it; the backend gets the address the client reached.
    assertThat(raw(vip, "GET /headers HTTP/1.0\r\n\r\n"))
        .startsWith("HTTP/1.1 200")
        .contains("host: 127.0.0.1:" + vip.getPort());
  }

  @Test
  void http09IsRefusedAtOnce() throws Exception {
    InetSocketAddress vip = serve(ListenerSpec.http(RequestKey.CLIENT), b1.address());
    // Without the check, this waits for a blank line that never comes: 15 s, then 408.
    assertThat(raw(vip, "GET /\r\n")).startsWith("HTTP/1.1 400").doesNotContain("<timeout>");
    assertThat(b1.requests).hasValue(0);
  }

  @Test
  void anAbsoluteFormTargetsHostIsTheOneTheBackendAndHashingSee() throws Exception {
    InetSocketAddress vip = serve(ListenerSpec.http(RequestKey.header("Host")), b1.address());
    String resp =
        raw(
            vip,
            "GET http://shop.example/headers HTTP/1.1\r\nHost: other.example\r\nConnection: close\r\n\r\n");
    assertThat(resp)
        .startsWith("HTTP/1.1 200")
        .contains("host: shop.example\n")
        .doesNotContain("other.example");
  }

  @Test
  void aTabbedTransferEncodingReachesNginxAsChunked() throws Exception {
    Nginx.require();
    Nginx n =
        cleanup.track(
            new Nginx("n1", "location / { proxy_pass http://127.0.0.1:" + b1.port() + "; }"));
    String req =
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\tchunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    // The premise: nginx itself refuses the tab (so a verbatim forward fails).
    assertThat(raw(n.address(), req)).startsWith("HTTP/1.1 501");
    InetSocketAddress vip = serve(ListenerSpec.http(RequestKey.CLIENT), n.address());
    assertThat(raw(vip, req)).startsWith("HTTP/1.1 200").endsWith("hello");
  }
}
