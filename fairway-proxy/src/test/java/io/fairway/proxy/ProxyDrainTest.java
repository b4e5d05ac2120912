package io.fairway.proxy;

import static io.fairway.proxy.Fixtures.anyPort;
import static io.fairway.proxy.Fixtures.dest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.proxy.table.RequestKey;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import io.fairway.testkit.HttpBackend;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** {@link ProxyTable#stopAccepting()}: what each kind of connection does during a soft stop. */
class ProxyDrainTest {
  @AutoClose final Cleanup cleanup = new Cleanup();

  private static String readToClose(Socket s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    int n;
    while ((n = s.getInputStream().read(buf)) > 0) {
      out.write(buf, 0, n);
    }
    return out.toString(StandardCharsets.ISO_8859_1);
  }

  @Test
  void httpFinishesTheExchangeUnderWayClosesIdleOnesAndAcceptsNothingNew() throws Exception {
    HttpBackend b = cleanup.track(new HttpBackend("b1"));
    ProxyTable t =
        cleanup.track(
            new ProxyTable(
                ProxyOptions.builder().ioThreads(1).build(),
                k -> ListenerSpec.http(RequestKey.CLIENT)));
    ServiceKey k = anyPort();
    t.addService(Service.of(k, "rr"));
    t.addDest(k, dest(b.address(), 1));
    InetSocketAddress vip = t.boundAddress(k);
    try (Socket idle = new Socket();
        Socket busy = new Socket()) {
      idle.connect(vip, 2000);
      idle.setSoTimeout(10_000);
      idle.getOutputStream()
          .write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      StringBuilder first = new StringBuilder();
      while (!first.toString().endsWith("\r\n\r\nb1")) {
        first.append((char) idle.getInputStream().read());
      }
      assertThat(first.toString()).startsWith("HTTP/1.1 200");
      busy.connect(vip, 2000);
      busy.setSoTimeout(10_000);
      busy.getOutputStream()
          .write(
              "GET /slow?ms=1500 HTTP/1.1\r\nHost: x\r\n\r\n"
                  .getBytes(StandardCharsets.ISO_8859_1));
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> b.requests.get() == 2); // in flight at the backend
      await().atMost(Duration.ofSeconds(5)).until(() -> t.openConnections() == 2);
      assertThat(t.stopAccepting()).isEqualTo(2);
      assertThat(idle.getInputStream().read())
          .as("the idle keep-alive connection closes")
          .isEqualTo(-1);
      assertThatThrownBy(
              () -> {
                try (Socket s = new Socket()) {
                  s.connect(vip, 1000);
                }
              })
          .isInstanceOf(IOException.class);
      String resp = readToClose(busy);
      assertThat(resp).startsWith("HTTP/1.1 200").contains("Connection: close").endsWith("b1");
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> t.openConnections() == 0);
  }
}
