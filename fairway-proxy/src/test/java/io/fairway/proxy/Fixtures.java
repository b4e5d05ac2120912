package io.fairway.proxy;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.ForwardingMethod;
import io.fairway.table.Protocol;
import io.fairway.table.ServiceKey;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Small helpers shared by the data-plane tests. */
final class Fixtures {
  private Fixtures() {}

  static final InetAddress LO = InetAddress.getLoopbackAddress();

  /** A service key on loopback with port 0: the listener gets a free port. */
  static ServiceKey anyPort() {
    return ServiceKey.of(Protocol.TCP, LO, 0);
  }

  static Dest dest(InetSocketAddress a, int weight) {
    return Dest.of(a.getAddress(), a.getPort(), weight);
  }

  static Dest dest(InetSocketAddress a, int weight, int upper, int lower) {
    return new Dest(a.getAddress(), a.getPort(), ForwardingMethod.MASQ, weight, upper, lower, null);
  }

  static DestKey key(InetSocketAddress a) {
    return new DestKey(a.getAddress(), a.getPort());
  }

  /**
   * The listening and established sockets the kernel lists in /proc/net/{@code file} ("tcp" for
   * IPv4, "tcp6" for IPv6) with the given local or remote port, whoever owns them. Earlier sockets
   * on the same port number linger in TIME_WAIT and the like; those are not counted.
   */
  static long socketsWithPort(String file, boolean local, int port) throws IOException {
    String hex = String.format(":%04X", port);
    try (var lines = java.nio.file.Files.lines(java.nio.file.Path.of("/proc/net", file))) {
      return lines
          .skip(1)
          .map(String::trim)
          .map(l -> l.split("\\s+"))
          .filter(f -> f[local ? 1 : 2].endsWith(hex))
          .filter(f -> f[3].equals("01") || f[3].equals("0A")) // ESTABLISHED, LISTEN
          .count();
    }
  }

  /** A loopback port nothing listens on (bound, then released). */
  static int deadPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, LO)) {
      return s.getLocalPort();
    }
  }

  /** An L4 client connection that reads the echo backend's greeting. */
  static final class Conn implements AutoCloseable {
    final Socket socket;
    final BufferedReader in;
    final String backend;

    Conn(InetSocketAddress to) throws IOException {
      socket = new Socket();
      socket.connect(to, 2000);
      socket.setSoTimeout(3000);
      in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
      backend = in.readLine();
    }

    String echo(String line) throws IOException {
      socket.getOutputStream().write((line + "\n").getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return in.readLine();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
