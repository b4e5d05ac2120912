package io.fairway.check.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.check.CheckConfigException;
import io.fairway.check.spec.CheckSource;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.DnsCheckSpec;
import io.fairway.check.spec.HttpCheckSpec;
import io.fairway.check.spec.SmtpCheckSpec;
import io.fairway.check.spec.TcpCheckSpec;
import io.fairway.check.spec.UdpCheckSpec;
import io.fairway.check.spec.UrlSpec;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.UnixChannel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * bindto / bind_port / bind_if / fwmark against real listeners on loopback: the server side asserts
 * the source it saw, and the kernel's refusals come back as failed checks with the reason.
 */
class SourceBindingTest {
  static final CheckerHarness harness = new CheckerHarness();
  static final CheckTiming T = CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(1500));
  static final CheckTiming FAST = CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(300));
  static final InetAddress LO1 = addr("127.0.0.1");
  static final InetAddress LO2 = addr("127.0.0.2");

  @AfterAll
  static void close() {
    harness.close();
  }

  static InetAddress addr(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  static CheckSource from(@Nullable InetAddress a, int port) {
    return new CheckSource(a, port, null, 0);
  }

  /**
   * A UDP server on 127.0.0.1 that answers every datagram with {@code reply(query)} and remembers
   * the sender.
   */
  static final class UdpServer implements AutoCloseable {
    final DatagramSocket socket;
    final CompletableFuture<InetSocketAddress> sender = new CompletableFuture<>();

    UdpServer(java.util.function.UnaryOperator<byte[]> reply) throws Exception {
      socket = new DatagramSocket(0, LO1);
      Thread t =
          new Thread(
              () -> {
                byte[] buf = new byte[1500];
                try {
                  while (true) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    socket.receive(p);
                    sender.complete((InetSocketAddress) p.getSocketAddress());
                    byte[] q = java.util.Arrays.copyOf(p.getData(), p.getLength());
                    byte[] r = reply.apply(q);
                    socket.send(new DatagramPacket(r, r.length, p.getSocketAddress()));
                  }
                } catch (Exception closed) {
                  // socket closed: test over
                }
              });
      t.setDaemon(true);
      t.start();
    }

    InetSocketAddress address() {
      return new InetSocketAddress(LO1, socket.getLocalPort());
    }

    InetSocketAddress seen() throws Exception {
      return sender.get(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
      socket.close();
    }
  }

  static UdpServer echo() throws Exception {
    return new UdpServer(q -> q);
  }

  /** What a one-shot test server says on the connection it accepted. */
  interface Dialog {
    void talk(BufferedReader in, OutputStream out) throws IOException;
  }

  /**
   * Accepts one connection on {@code s} in a thread of its own, completes {@code seen} with the
   * address it came from, then runs {@code dialog}; the caller joins the thread.
   */
  static Thread acceptOnce(ServerSocket s, CompletableFuture<SocketAddress> seen, Dialog dialog) {
    Thread t =
        new Thread(
            () -> {
              try (Socket c = s.accept()) {
                seen.complete(c.getRemoteSocketAddress());
                dialog.talk(
                    new BufferedReader(
                        new InputStreamReader(c.getInputStream(), StandardCharsets.US_ASCII)),
                    c.getOutputStream());
              } catch (Exception ignored) {
                // test server
              }
            });
    t.start();
    return t;
  }

  @Test
  void smtpLeavesFromBindtoAndBindPort() throws Exception {
    int port = Programs.freePort();
    CompletableFuture<SocketAddress> seen = new CompletableFuture<>();
    try (ServerSocket s = new ServerSocket(0, 50, LO1)) {
      Thread t =
          acceptOnce(
              s,
              seen,
              (in, out) -> {
                out.write("220 test ESMTP\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                String helo = in.readLine();
                out.write(("250 hello " + helo + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                in.readLine();
                out.write("221 bye\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
              });
      var spec =
          new SmtpCheckSpec(
              new InetSocketAddress(LO1, s.getLocalPort()),
              from(LO2, port),
              SmtpCheckSpec.DEFAULT_HELO,
              T);
      assertThat(spec.describe())
          .isEqualTo("SMTP_CHECK 127.0.0.1:" + s.getLocalPort() + " from 127.0.0.2:" + port);
      CheckResult r = harness.once(spec);
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(seen.get(5, TimeUnit.SECONDS)).isEqualTo(new InetSocketAddress(LO2, port));
      t.join(2000);
    }
  }

  @Test
  void httpLeavesFromBindtoAndBindPort() throws Exception {
    int port = Programs.freePort();
    CompletableFuture<SocketAddress> seen = new CompletableFuture<>();
    try (ServerSocket s = new ServerSocket(0, 50, LO1)) {
      Thread t =
          acceptOnce(
              s,
              seen,
              (in, out) -> {
                String line;
                while ((line = in.readLine()) != null && !line.isEmpty()) {
                  // the request head
                }
                out.write(
                    "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
              });
      var spec =
          HttpCheckSpec.builder(new InetSocketAddress(LO1, s.getLocalPort()), T)
              .urls(UrlSpec.path("/"))
              .source(from(LO2, port))
              .build();
      assertThat(spec.describe())
          .isEqualTo("HTTP_GET 127.0.0.1:" + s.getLocalPort() + " from 127.0.0.2:" + port);
      CheckResult r = harness.once(spec);
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(seen.get(5, TimeUnit.SECONDS)).isEqualTo(new InetSocketAddress(LO2, port));
      t.join(2000);
    }
  }

  @Test
  void dnsLeavesFromBindtoAndBindPort() throws Exception {
    int port = Programs.freeUdpPort();
    // A DNS server that answers NOERROR with no records: the check looks only at id and RCODE.
    try (UdpServer dns =
        new UdpServer(
            q -> {
              byte[] r = q.clone();
              r[2] = (byte) (0x80 | (q[2] & 0x01)); // QR, RD copied
              r[3] = (byte) 0x80; // RA, RCODE 0
              return r;
            })) {
      CheckResult r =
          harness.once(new DnsCheckSpec(dns.address(), from(LO2, port), "A", "www.check.test", T));
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(dns.seen()).isEqualTo(new InetSocketAddress(LO2, port));
    }
  }

  @Test
  void udpLeavesFromBindto() throws Exception {
    try (UdpServer echo = echo()) {
      CheckResult r =
          harness.once(new UdpCheckSpec(echo.address(), from(LO2, 0), "cafe", "cafe", 0, 255, T));
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(echo.seen().getAddress()).isEqualTo(LO2);
    }
  }

  @Test
  void udpOverIpv6LeavesFromBindPort() throws Exception {
    InetAddress v6 = addr("::1");
    DatagramSocket server;
    try {
      server = new DatagramSocket(0, v6);
    } catch (java.net.SocketException e) {
      assumeTrue(false, "no IPv6 loopback here: " + e.getMessage());
      return;
    }
    int port = Programs.freeUdpPort();
    try (server) {
      CompletableFuture<SocketAddress> seen = new CompletableFuture<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  DatagramPacket p = new DatagramPacket(new byte[64], 64);
                  server.receive(p);
                  seen.complete(p.getSocketAddress());
                  server.send(new DatagramPacket(p.getData(), p.getLength(), p.getSocketAddress()));
                } catch (Exception ignored) {
                  // closed
                }
              });
      t.setDaemon(true);
      t.start();
      var spec =
          new UdpCheckSpec(
              new InetSocketAddress(v6, server.getLocalPort()),
              from(null, port),
              "beef",
              "beef",
              0,
              255,
              T);
      assertThat(spec.describe()).endsWith(" from *:" + port);
      CheckResult r = harness.once(spec);
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(seen.get(5, TimeUnit.SECONDS)).isEqualTo(new InetSocketAddress(v6, port));
    }
  }

  @Test
  void aBindPortInUseFailsTheCheckWithTheReasonAndTheNextAttemptRunsAgain() throws Exception {
    // Closed in the middle, to free the port, so not a try resource.
    DatagramSocket squatter = new DatagramSocket(0, LO2);
    try (UdpServer echo = echo()) {
      var spec =
          new UdpCheckSpec(
              echo.address(), from(LO2, squatter.getLocalPort()), "cafe", "cafe", 0, 255, T);
      Checker c = harness.create(spec, 1);
      CheckResult r = CheckerHarness.once(c);
      assertThat(r.success()).isFalse();
      assertThat(r.observation())
          .isEqualTo(
              "cannot bind to 127.0.0.2:" + squatter.getLocalPort() + ": Address already in use");
      squatter.close();
      CheckResult again = CheckerHarness.once(c);
      assertThat(again.success()).as(again.observation()).isTrue();
      assertThat(echo.seen().getAddress()).isEqualTo(LO2);
    } finally {
      squatter.close();
    }
  }

  @Test
  void bindIfLoWorksAndAMissingInterfaceFailsWithTheReason() throws Exception {
    assumeTrue(Epoll.isAvailable(), "bind_if needs the epoll transport");
    try (UdpServer echo = echo()) {
      var lo = new CheckSource(null, 0, "lo", 0);
      CheckResult ok =
          harness.once(new UdpCheckSpec(echo.address(), lo, "cafe", "cafe", 0, 255, T));
      assertThat(ok.success()).as(ok.observation()).isTrue();
      var missing = new CheckSource(null, 0, "fwnosuch0", 0);
      CheckResult r =
          harness.once(new UdpCheckSpec(echo.address(), missing, "cafe", "cafe", 0, 255, T));
      assertThat(r.success()).isFalse();
      assertThat(r.observation())
          .isEqualTo("bind_if fwnosuch0: No such device (no such interface)");
      CheckResult dns = harness.once(new DnsCheckSpec(echo.address(), missing, "A", "x.test", T));
      assertThat(dns.observation())
          .isEqualTo("bind_if fwnosuch0: No such device (no such interface)");
    }
  }

  @Test
  void fwmarkAndBindIfAreOnTheSocketWhenItConnects() throws Exception {
    assumeTrue(Epoll.isAvailable(), "fwmark needs the epoll transport");
    boolean admin = "root".equals(System.getProperty("user.name"));
    var group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    try (UdpServer echo = echo()) {
      var source = new CheckSource(null, 0, "lo", 7);
      CompletableFuture<String> seen = new CompletableFuture<>();
      Resolved.bootstrap(group, EpollDatagramChannel.class, source, echo.address())
          .handler(new ChannelInboundHandlerAdapter())
          .connect(echo.address())
          .addListener(
              (ChannelFuture f) -> {
                if (f.isSuccess()) {
                  int fd = ((UnixChannel) f.channel()).fd().intValue();
                  seen.complete(
                      "mark " + SocketOptions.mark(fd) + " dev " + SocketOptions.device(fd));
                } else {
                  seen.complete(f.cause().getMessage());
                }
                f.channel().close();
              });
      String s = seen.get(5, TimeUnit.SECONDS);
      if (admin) {
        assertThat(s).isEqualTo("mark 7 dev lo");
        // ... and traffic still flows with the mark
        CheckResult r =
            harness.once(new UdpCheckSpec(echo.address(), source, "cafe", "cafe", 0, 255, T));
        assertThat(r.success()).as(r.observation()).isTrue();
      } else {
        assertThat(s).startsWith("fwmark 7: Operation not permitted (needs CAP_NET_ADMIN");
      }
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void bindtoOfTheWrongFamilyIsRefusedWhenTheCheckerIsMade() {
    var spec =
        new UdpCheckSpec(
            new InetSocketAddress(LO1, 9), from(addr("::1"), 0), "00", null, 0, 255, FAST);
    assertThatThrownBy(() -> harness.create(spec, 1))
        .isInstanceOf(CheckConfigException.class)
        .hasMessage(
            "vs rs UDP_CHECK 127.0.0.1:9 from [::1]: bindto ::1 is not of the address family of"
                + " 127.0.0.1");
  }

  @Test
  void tcpLeavesFromBindtoBindPortAndBindIf() throws Exception {
    assumeTrue(Epoll.isAvailable(), "bind_if needs the epoll transport");
    int port = Programs.freePort();
    try (ServerSocket s = new ServerSocket(0, 50, LO1)) {
      CompletableFuture<SocketAddress> seen = new CompletableFuture<>();
      Thread t = acceptOnce(s, seen, (in, out) -> {});
      var target = new InetSocketAddress(LO1, s.getLocalPort());
      var spec = new TcpCheckSpec(target, new CheckSource(LO2, port, "lo", 0), T);
      CheckResult r = harness.once(spec);
      assertThat(r.success()).as(r.observation()).isTrue();
      assertThat(seen.get(5, TimeUnit.SECONDS)).isEqualTo(new InetSocketAddress(LO2, port));
      t.join(2000);
      CheckResult missing =
          harness.once(new TcpCheckSpec(target, new CheckSource(null, 0, "fwnosuch0", 0), T));
      assertThat(missing.success()).isFalse();
      assertThat(missing.observation())
          .isEqualTo("bind_if fwnosuch0: No such device (no such interface)");
    }
  }

  @Test
  void sourceValuesAreValidated() {
    assertThatThrownBy(() -> new CheckSource(null, 70000, null, 0))
        .hasMessageContaining("bind_port 70000");
    assertThatThrownBy(() -> new CheckSource(null, 0, "a-very-long-ifname", 0))
        .hasMessageContaining("not a valid interface name");
    assertThatThrownBy(() -> new CheckSource(null, 0, null, 1L << 32))
        .hasMessageContaining("fwmark");
    assertThat(new CheckSource(LO2, 4000, "lo", 7).describe())
        .isEqualTo(" from 127.0.0.2:4000 dev lo fwmark 7");
    assertThat(new CheckSource(null, 4000, null, 0).localAddress(addr("::1")))
        .isEqualTo(new InetSocketAddress(addr("::"), 4000));
    assertThat(CheckSource.NONE.localAddress(LO1)).isNull();
  }
}
