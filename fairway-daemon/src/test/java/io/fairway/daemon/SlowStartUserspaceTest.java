package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.apply.Applier;
import io.fairway.apply.InitialState;
import io.fairway.apply.ServerBinding;
import io.fairway.apply.ServiceBinding;
import io.fairway.apply.VirtualServerStatus;
import io.fairway.plan.Selection;
import io.fairway.proxy.ProxyOptions;
import io.fairway.proxy.plane.ProxyTable;
import io.fairway.proxy.table.ListenerSpec;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceKey;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Slow start end to end through the userspace data plane: the applier hands the ramp of a server
 * that comes up after start to the proxy ({@link io.fairway.table.RampTarget}) and writes its full
 * weight; the proxy's rr scheduler then admits it on about 1% of its turns at the start of a 10
 * minute ramp, while two servers present at start share the rest evenly. Real TCP connections over
 * loopback to real backends; nothing waits on time.
 */
class SlowStartUserspaceTest {
  static final InetAddress LO = InetAddress.getLoopbackAddress();

  /** A backend that answers each connection with its name and closes it. */
  static final class NamedBackend implements AutoCloseable {
    final String name;
    final ServerSocket socket;
    final Thread thread;

    NamedBackend(String name) throws IOException {
      this.name = name;
      this.socket = new ServerSocket(0, 256, LO);
      this.thread = new Thread(this::serve, "slowstart-backend-" + name);
      thread.setDaemon(true);
      thread.start();
    }

    private void serve() {
      while (!socket.isClosed()) {
        try (Socket s = socket.accept();
            OutputStream out = s.getOutputStream()) {
          out.write((name + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException closed) {
          return;
        }
      }
    }

    int port() {
      return socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      socket.close();
      try {
        thread.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the caller's to see
      }
    }
  }

  static String ask(InetSocketAddress vip) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(vip, 5_000);
      s.setSoTimeout(5_000);
      return new BufferedReader(
              new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
          .readLine();
    }
  }

  @Test
  void aServerThatComesUpAfterStartRampsAndServersPresentAtStartDoNot() throws Exception {
    rampsThroughTheListener("rr", null);
  }

  @Test
  void theSameThroughAVarnishRoundRobinDirector() throws Exception {
    rampsThroughTheListener(
        "round_robin", ListenerSpec.tcp().withSelection(new Selection.RoundRobin()));
  }

  void rampsThroughTheListener(String scheduler, @Nullable ListenerSpec spec) throws Exception {
    ServiceKey key = ServiceKey.of(Protocol.TCP, LO, 0);
    Duration ramp = Duration.ofMinutes(10);
    try (NamedBackend a = new NamedBackend("a");
        NamedBackend b = new NamedBackend("b");
        NamedBackend c = new NamedBackend("c");
        ProxyTable table = new ProxyTable(ProxyOptions.builder().ioThreads(1).build(), k -> spec)) {
      List<ServerBinding> servers =
          List.of(
              new ServerBinding("a", Dest.of(LO, a.port(), 10), false, 10, ramp),
              new ServerBinding("b", Dest.of(LO, b.port(), 10), false, 10, ramp),
              new ServerBinding("c", Dest.of(LO, c.port(), 10), false, 10, ramp));
      Applier applier =
          new Applier(
              table, Map.of("web", ServiceBinding.of("web", Service.of(key, scheduler), servers)));
      applier.init("web", new InitialState(Set.of("a", "b"), true));
      assertThat(applier.rampsActive()).as("nobody ramps at start").isFalse();
      applier.setAlive("web", "c", true);
      assertThat(applier.rampsInTable()).isTrue();

      InetSocketAddress vip = Objects.requireNonNull(table.boundAddress(key), "the service is up");
      Map<String, Integer> seen = new HashMap<>();
      for (int i = 0; i < 300; i++) {
        seen.merge(ask(vip), 1, Integer::sum);
      }
      // c is about 0.2% into its ramp: weight 1% of its share, so 1 or 2 of 300.
      assertThat(seen.getOrDefault("c", 0)).as("c, ramping").isBetween(1, 6);
      assertThat(seen.getOrDefault("a", 0) + seen.getOrDefault("b", 0) + seen.getOrDefault("c", 0))
          .isEqualTo(300);
      assertThat(Math.abs(seen.getOrDefault("a", 0) - seen.getOrDefault("b", 0)))
          .as("a and b share evenly")
          .isLessThanOrEqualTo(1);

      // The table carries c's full weight (the scheduler ramps, the weight is not stepped), and
      // the status says it ramps in the scheduler.
      DestEntry cInTable =
          table.list().get(0).dests().stream()
              .filter(d -> d.dest().port() == c.port())
              .findFirst()
              .orElseThrow();
      assertThat(cInTable.dest().weight()).isEqualTo(10);
      assertThat(applier.stepSlowStarts()).as("nothing stepped in the table").isZero();
      VirtualServerStatus.RealServerStatus cs = applier.status().get(0).servers().get(2);
      assertThat(cs.rampsInScheduler()).isTrue();
      assertThat(cs.ramp().duration()).isEqualTo(ramp);
      assertThat(StatusFormat.rampNote(cs))
          .startsWith(" (slow start: 1% of its share, weight 0.1 of 10, ");
      assertThat(io.fairway.daemon.admin.ServicesView.slowStartWeight(cs))
          .as("the API's figure")
          .isEqualTo(0.1);
      assertThat(applier.status().get(0).servers().get(0).ramping()).as("a").isFalse();
    }
  }
}
