package io.fairway.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
  private static final InetAddress LO = InetAddress.getLoopbackAddress();

  @Test
  void aPortIsBelowTheEphemeralRangeAndFreeForTcpAndUdp() throws Exception {
    int port = FreePorts.loopback();
    assertThat(port).isBetween(10_000, FreePorts.ephemeralLow() - 1);
    try (ServerSocket tcp = new ServerSocket();
        DatagramSocket udp = new DatagramSocket(port, LO)) {
      tcp.bind(new InetSocketAddress(LO, port));
      assertThat(udp.getLocalPort()).isEqualTo(port);
    }
  }

  @Test
  void portsHeldByThisTestAreNeverHandedOut() throws Exception {
    // Hold 50 ports from the helper (TCP on some, UDP only on others): none comes back while held.
    Set<Integer> held = new HashSet<>();
    var sockets = new java.util.ArrayList<AutoCloseable>();
    try {
      for (int i = 0; i < 50; i++) {
        int p = FreePorts.loopback();
        assertThat(held).doesNotContain(p);
        held.add(p);
        sockets.add(i % 2 == 0 ? new ServerSocket(p, 1, LO) : new DatagramSocket(p, LO));
      }
    } finally {
      for (AutoCloseable s : sockets) {
        s.close();
      }
    }
  }
}
