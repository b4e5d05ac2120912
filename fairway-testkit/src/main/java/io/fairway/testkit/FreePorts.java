package io.fairway.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for programs a test starts (nginx, varnishd, dnsmasq, {@code fairway run}): they must be
 * named in a config file, so the test finds a free port, releases it, and the program binds it a
 * moment later.
 *
 * <p>A port from the kernel's ephemeral range ({@code bind(0)}, {@code ip_local_port_range}) can be
 * taken in that moment by any process's outgoing {@code connect()}: the kernel hands those ports
 * out itself, and a test suite running beside this one opens thousands of connections a second.
 * That is how dnsmasq once failed with "Address already in use" three times in a row in a repeated
 * run. A port below the range is taken only by an explicit bind, so this picks one at random there
 * (tests in other JVMs do the same; two picking one port out of some 20,000 in the same second is
 * rare, and a caller that can retry should) and checks that it is free for both TCP and UDP: DNS
 * servers bind both and exit when either is taken.
 */
public final class FreePorts {
  /** The bottom of the range: below it sit well-known and registered services. */
  private static final int LOWEST = 10_000;

  private static final int ATTEMPTS = 200;

  private FreePorts() {}

  /** A loopback port free for TCP and UDP, outside the ephemeral range. */
  public static int loopback() {
    return on(InetAddress.getLoopbackAddress());
  }

  /** A port on {@code address} free for TCP and UDP, outside the ephemeral range. */
  public static int on(InetAddress address) {
    int highest = ephemeralLow() - 1;
    if (highest - LOWEST < 1_000) {
      return ephemeral(address); // an unusual range: nothing sensible left below it
    }
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
      if (free(address, port)) {
        return port;
      }
    }
    throw new IllegalStateException(
        "no free port on " + address.getHostAddress() + " in " + LOWEST + "-" + highest);
  }

  private static boolean free(InetAddress address, int port) {
    try (ServerSocket tcp = new ServerSocket()) {
      // Without SO_REUSEADDR a port with a connection in TIME_WAIT counts as taken, as it does
      // for a program that binds it without the option.
      tcp.setReuseAddress(false);
      tcp.bind(new InetSocketAddress(address, port), 1);
      try (DatagramSocket udp = new DatagramSocket(port, address)) {
        return udp.isBound();
      }
    } catch (IOException e) {
      return false;
    }
  }

  private static int ephemeral(InetAddress address) {
    try (ServerSocket s = new ServerSocket(0, 1, address)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The first port of {@code net.ipv4.ip_local_port_range}, 32768 when it cannot be read. */
  static int ephemeralLow() {
    // Not Files.readString: procfs reports a size of 0, the JDK reads one byte, and an integer
    // sysctl answers any read past offset 0 with end of file ("3" for "32768 60999").
    try (var in = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
      return Integer.parseInt(in.readLine().trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32_768;
    }
  }
}
