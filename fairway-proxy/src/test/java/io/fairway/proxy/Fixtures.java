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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

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
   * This JVM's listening and established sockets that /proc/net/{@code file} ("tcp" for IPv4,
   * "tcp6" for IPv6) lists with {@code at} as their local or remote end. Only this JVM's, and by
   * address and port: a suite running beside this one has sockets with the same port numbers (its
   * ephemeral ports, its own servers), and earlier sockets linger in TIME_WAIT.
   */
  static long socketsAt(String file, boolean local, InetSocketAddress at) throws IOException {
    List<ProcSocket> all = procSockets();
    Set<Long> own = io.fairway.testkit.OwnSockets.inodes();
    return all.stream()
        .filter(p -> p.file().equals(file) && own.contains(p.inode()))
        .filter(p -> p.established() || p.state().equals("0A"))
        .filter(p -> (local ? p.local() : p.remote()).equals(at))
        .count();
  }

  /** A TCP socket as /proc/net/tcp or /proc/net/tcp6 lists it. */
  record ProcSocket(
      String file, InetSocketAddress local, InetSocketAddress remote, String state, long inode) {
    boolean established() {
      return state.equals("01");
    }

    @Override
    public String toString() {
      String st =
          switch (state) {
            case "01" -> "ESTABLISHED";
            case "02" -> "SYN_SENT";
            case "04" -> "FIN_WAIT1";
            case "05" -> "FIN_WAIT2";
            case "06" -> "TIME_WAIT";
            case "08" -> "CLOSE_WAIT";
            case "09" -> "LAST_ACK";
            case "0A" -> "LISTEN";
            default -> "state " + state;
          };
      return file
          + " "
          + local.getAddress().getHostAddress()
          + ":"
          + local.getPort()
          + " -> "
          + remote.getAddress().getHostAddress()
          + ":"
          + remote.getPort()
          + " "
          + st
          + " inode "
          + inode;
    }
  }

  /** Every TCP socket of this network namespace, IPv4 and IPv6, whichever process owns it. */
  static List<ProcSocket> procSockets() throws IOException {
    List<ProcSocket> out = new ArrayList<>();
    for (String file : new String[] {"tcp", "tcp6"}) {
      List<String> lines = Files.readAllLines(Path.of("/proc/net", file));
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.trim().split("\\s+");
        out.add(new ProcSocket(file, endpoint(f[1]), endpoint(f[2]), f[3], Long.parseLong(f[9])));
      }
    }
    return out;
  }

  /**
   * An address as /proc/net/tcp{,6} writes it: the address in 32-bit words of host (little-endian)
   * byte order, a colon, the port; an IPv4-mapped IPv6 address comes back as IPv4.
   */
  private static InetSocketAddress endpoint(String hex) {
    int colon = hex.indexOf(':');
    byte[] a = new byte[colon / 2];
    for (int w = 0; w < a.length; w += 4) {
      for (int i = 0; i < 4; i++) {
        a[w + i] = (byte) Integer.parseInt(hex.substring((w + 3 - i) * 2, (w + 4 - i) * 2), 16);
      }
    }
    try {
      return new InetSocketAddress(
          InetAddress.getByAddress(a), Integer.parseInt(hex.substring(colon + 1), 16));
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(hex, e);
    }
  }

  /**
   * This JVM's established TCP connections to {@code to}, from an IPv4 or an IPv6 socket: which
   * file lists a connection depends on the transport (io_uring's sockets are IPv6, even to an IPv4
   * address), and a port number alone also matches other processes' connections to another address
   * with that port.
   */
  static List<ProcSocket> connectionsTo(InetSocketAddress to) throws IOException {
    List<ProcSocket> all = procSockets();
    // Read after the lines: a socket they list as established already had its descriptor.
    Set<Long> own = io.fairway.testkit.OwnSockets.inodes();
    return all.stream()
        .filter(p -> p.established() && p.remote().equals(to) && own.contains(p.inode()))
        .toList();
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
