package io.fairway.proxy;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A UDP backend for tests: answers every datagram with its name, a colon and the payload, from the
 * address it was sent to. {@code silent} servers count datagrams and never answer.
 */
// close() waits for what it stops; an interrupt there fails the test like any other error.
@SuppressWarnings("try")
final class UdpEchoServer implements AutoCloseable {
  private final DatagramSocket socket;
  private final String name;
  private final boolean silent;
  private final Thread thread;
  private final AtomicInteger received = new AtomicInteger();

  /** The last client address and port this server saw (the proxy's socket for the flow). */
  volatile InetSocketAddress lastPeer;

  UdpEchoServer(String name) throws IOException {
    this(name, InetAddress.getLoopbackAddress(), false);
  }

  UdpEchoServer(String name, InetAddress bind, boolean silent) throws IOException {
    this.name = name;
    this.silent = silent;
    this.socket = new DatagramSocket(new InetSocketAddress(bind, 0));
    this.thread = new Thread(this::serve, "udp-echo-" + name);
    thread.setDaemon(true);
    thread.start();
  }

  InetSocketAddress address() {
    return (InetSocketAddress) socket.getLocalSocketAddress();
  }

  int received() {
    return received.get();
  }

  private void serve() {
    byte[] buf = new byte[65535];
    byte[] prefix = (name + ":").getBytes(StandardCharsets.US_ASCII);
    while (!socket.isClosed()) {
      DatagramPacket p = new DatagramPacket(buf, buf.length);
      try {
        socket.receive(p);
        received.incrementAndGet();
        lastPeer = (InetSocketAddress) p.getSocketAddress();
        if (silent) {
          continue;
        }
        byte[] out = Arrays.copyOf(prefix, prefix.length + p.getLength());
        System.arraycopy(buf, 0, out, prefix.length, p.getLength());
        socket.send(new DatagramPacket(out, out.length, p.getSocketAddress()));
      } catch (SocketException e) {
        return; // closed
      } catch (IOException e) {
        // an answer the kernel refused (the peer went away): keep serving
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    socket.close();
    thread.join(2000);
  }
}
