package io.fairway.check.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.check.spec.CheckSource;
import io.fairway.check.spec.CheckSpec;
import io.fairway.check.spec.CheckTiming;
import io.fairway.check.spec.DnsCheckSpec;
import io.fairway.check.spec.UdpCheckSpec;
import io.netty.channel.epoll.Epoll;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Regression test for the hang in CI: a UDP or DNS check that closed its epoll datagram channel
 * from inside {@code channelRead} freed the descriptor while Netty's read loop ({@code
 * EpollDatagramChannel.epollInReady}) went on to {@code recv()} once more on the same number. If
 * another socket had taken that number in between, the event loop read from it: it stole a
 * datagram, or, for a blocking socket with nothing queued, blocked forever.
 *
 * <p>The trap: the check's result callback runs on the event loop right after the answer; it opens
 * JDK sockets (the lowest free number goes first, so one takes the descriptor just freed, if it was
 * freed) and queues a datagram in each. Every datagram must still be there afterwards.
 */
class DatagramCloseInReadTest {
  static final CheckerHarness harness = new CheckerHarness();
  static final CheckTiming T = CheckTiming.of(Duration.ofSeconds(1), Duration.ofMillis(1500));
  static final InetAddress LO = InetAddress.getLoopbackAddress(); // 127.0.0.1

  @AfterAll
  static void close() {
    harness.close();
  }

  @Test
  void aUdpCheckDoesNotReadFromADescriptorItHasClosed() throws Exception {
    assumeTrue(Epoll.isAvailable(), "the read loop in question is the epoll transport's");
    try (var echo = new Responder(q -> q)) {
      trap(new UdpCheckSpec(echo.address(), CheckSource.NONE, "cafe", "cafe", 0, 255, T));
    }
  }

  @Test
  void aDnsCheckDoesNotReadFromADescriptorItHasClosed() throws Exception {
    assumeTrue(Epoll.isAvailable(), "the read loop in question is the epoll transport's");
    try (var dns =
        new Responder(
            q -> {
              byte[] r = q.clone();
              r[2] = (byte) (0x80 | (q[2] & 0x01));
              r[3] = (byte) 0x80;
              return r;
            })) {
      trap(new DnsCheckSpec(dns.address(), CheckSource.NONE, "A", "www.check.test", T));
    }
  }

  /** Answers every datagram on 127.0.0.1 with {@code reply(query)}, on a thread of its own. */
  static final class Responder implements AutoCloseable {
    final DatagramSocket socket;
    final Thread thread;

    Responder(UnaryOperator<byte[]> reply) throws Exception {
      socket = new DatagramSocket(0, LO);
      thread =
          new Thread(
              () -> {
                byte[] buf = new byte[1500];
                try {
                  while (true) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    socket.receive(p);
                    byte[] r = reply.apply(Arrays.copyOf(p.getData(), p.getLength()));
                    socket.send(new DatagramPacket(r, r.length, p.getSocketAddress()));
                  }
                } catch (Exception closed) {
                  // closed: test over
                }
              },
              "responder");
      thread.setDaemon(true);
      thread.start();
    }

    InetSocketAddress address() {
      return new InetSocketAddress(LO, socket.getLocalPort());
    }

    @Override
    public void close() {
      socket.close();
      // The JDK releases the descriptor only when the blocked receive returns: leave nothing
      // behind.
      try {
        thread.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void trap(CheckSpec spec) throws Exception {
    Checker c = harness.create(spec, 1);
    for (int round = 0; round < 20; round++) {
      List<DatagramChannel> bait = new ArrayList<>();
      CompletableFuture<CheckResult> f = new CompletableFuture<>();
      c.check(
          r -> {
            try {
              for (int i = 0; i < 4; i++) {
                // Non-blocking, so that the bug shows as a stolen datagram rather than a hung event
                // loop.
                DatagramChannel s = DatagramChannel.open();
                bait.add(s);
                s.configureBlocking(false);
                s.bind(new InetSocketAddress(LO, 0));
                s.send(ByteBuffer.wrap(new byte[] {(byte) i}), s.getLocalAddress());
              }
            } catch (Exception e) {
              f.completeExceptionally(e);
              return;
            }
            f.complete(r);
          });
      try {
        CheckResult r = f.get(c.deadline().toMillis() + 5000, TimeUnit.MILLISECONDS);
        assertThat(r.success()).as(r.observation()).isTrue();
        for (int i = 0; i < bait.size(); i++) {
          assertThat(receive(bait.get(i)))
              .as(
                  "round %d: the datagram queued in a socket opened right"
                      + " after the check (the event loop must not read a descriptor it has closed)",
                  round)
              .isEqualTo(i);
        }
      } finally {
        for (DatagramChannel s : bait) {
          s.close();
        }
      }
    }
  }

  /**
   * The one byte queued in {@code s}, or -1 if none arrives within five seconds (it was sent
   * before).
   */
  private static int receive(DatagramChannel s) throws Exception {
    ByteBuffer b = ByteBuffer.allocate(8);
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (s.receive(b) == null) {
      if (System.nanoTime() > deadline) {
        return -1;
      }
      Thread.sleep(10);
    }
    return b.get(0);
  }
}
