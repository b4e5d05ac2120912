package io.fairway.daemon.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fairway.table.DestEntry;
import io.fairway.table.Protocol;
import io.fairway.table.ServiceEntry;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lvs_timeouts tcp|udp} reloads on the userspace plane as on the kernel's: IPVS gives a
 * connection the current timeout at each packet ({@code set_tcp_state}, {@code
 * udp_state_transition}, then {@code ip_vs_conn_put} re-arms its timer), so after a reload new
 * connections and flows get the new timeout, an established one gets it with its next packet, and
 * one idle since before the reload keeps the deadline it had.
 */
class LvsTimeoutsReloadTest {
  @TempDir Path dir;
  final List<AutoCloseable> open = new CopyOnWriteArrayList<>();
  UserspaceDaemon fairway;

  @AfterEach
  void stop() throws Exception {
    if (fairway != null) {
      fairway.close();
    }
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  static String conf(int timeout, int vip, int echo, int uvip, int uecho) {
    return "global_defs {\n lvs_timeouts tcp "
        + timeout
        + " udp "
        + timeout
        + "\n}\n"
        + "virtual_server 127.0.0.1 "
        + vip
        + " {\n name tcp\n lb_algo rr\n lb_kind NAT\n protocol TCP\n"
        + " real_server 127.0.0.1 "
        + echo
        + " {\n }\n}\n"
        + "virtual_server 127.0.0.1 "
        + uvip
        + " {\n name udp\n lb_algo rr\n lb_kind NAT\n protocol UDP\n"
        + " real_server 127.0.0.1 "
        + uecho
        + " {\n }\n}\n";
  }

  @Test
  void newConnectionsTakeTheNewTimeoutAndEstablishedOnesWithTheirNextPacket() throws Exception {
    int echo = tcpEcho();
    int uecho = udpEcho();
    int vip = UserspaceDaemon.freePort();
    int uvip = freeUdpPort();
    fairway = new UserspaceDaemon(dir.resolve("keepalived.conf"), conf(60, vip, echo, uvip, uecho));
    Socket before = connect(vip);
    DatagramSocket flowBefore = udp(uvip);
    assertThat(fairway.reload(conf(2, vip, echo, uvip, uecho))).isNull();

    Socket after = connect(vip);
    DatagramSocket flowAfter = udp(uvip);
    assertThat(flows()).isEqualTo(2);
    // The connection and the flow made after the reload end 2 s after their last packet...
    await().atMost(Duration.ofSeconds(10)).until(() -> closed(after) && flows() == 1);
    // ...while those idle since before it still have the 60 s they were given.
    assertThat(closed(before)).as("a connection idle since before the reload").isFalse();
    assertThat(flows()).as("the flow idle since before the reload").isEqualTo(1);

    // Their next packet gives them the new timeout.
    echo(before);
    echo(flowBefore);
    await().atMost(Duration.ofSeconds(10)).until(() -> closed(before) && flows() == 0);
    flowAfter.close();
  }

  /** Live UDP flows of the UDP service (the table counts them as inactive connections). */
  int flows() {
    for (ServiceEntry e : fairway.table.list()) {
      if (e.service().key().protocol() == Protocol.UDP) {
        return e.dests().stream().mapToInt(DestEntry::inactiveConnections).sum();
      }
    }
    throw new AssertionError("no UDP service");
  }

  Socket connect(int port) throws IOException {
    Socket s = new Socket();
    open.add(s);
    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
    echo(s);
    return s;
  }

  static void echo(Socket s) throws IOException {
    s.setSoTimeout(5000);
    s.getOutputStream().write('x');
    assertThat(s.getInputStream().read()).isEqualTo('x');
  }

  /**
   * Whether the proxy closed it; reads nothing if it did not (the echo sends only what it gets).
   */
  static boolean closed(Socket s) throws IOException {
    s.setSoTimeout(50);
    InputStream in = s.getInputStream();
    try {
      return in.read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset
    }
  }

  DatagramSocket udp(int port) throws IOException {
    DatagramSocket s =
        new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    open.add(s);
    s.connect(InetAddress.getLoopbackAddress(), port);
    echo(s);
    return s;
  }

  static void echo(DatagramSocket s) throws IOException {
    s.setSoTimeout(5000);
    s.send(new DatagramPacket(new byte[] {'u'}, 1));
    DatagramPacket p = new DatagramPacket(new byte[16], 16);
    s.receive(p);
    assertThat(p.getLength()).isEqualTo(1);
  }

  int tcpEcho() throws IOException {
    ServerSocket ss = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    open.add(ss);
    Thread t =
        new Thread(
            () -> {
              while (!ss.isClosed()) {
                try {
                  Socket c = ss.accept();
                  open.add(c);
                  Thread r =
                      new Thread(
                          () -> {
                            try (c) {
                              int b;
                              while ((b = c.getInputStream().read()) != -1) {
                                c.getOutputStream().write(b);
                              }
                            } catch (IOException e) {
                              // the proxy closed it
                            }
                          },
                          "lvs-timeouts-echo-conn");
                  r.setDaemon(true);
                  r.start();
                } catch (IOException e) {
                  return; // closed by the test
                }
              }
            },
            "lvs-timeouts-echo");
    t.setDaemon(true);
    t.start();
    return ss.getLocalPort();
  }

  int udpEcho() throws IOException {
    DatagramSocket s =
        new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    open.add(s);
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[2048];
              while (!s.isClosed()) {
                try {
                  DatagramPacket p = new DatagramPacket(buf, buf.length);
                  s.receive(p);
                  s.send(new DatagramPacket(p.getData(), p.getLength(), p.getSocketAddress()));
                } catch (IOException e) {
                  return; // closed by the test
                }
              }
            },
            "lvs-timeouts-udp-echo");
    t.setDaemon(true);
    t.start();
    return s.getLocalPort();
  }

  static int freeUdpPort() throws IOException {
    try (DatagramSocket s =
        new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      return s.getLocalPort();
    }
  }
}
