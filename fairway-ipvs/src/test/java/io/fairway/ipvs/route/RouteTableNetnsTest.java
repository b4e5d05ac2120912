package io.fairway.ipvs.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.netlink.NetlinkException;
import io.fairway.testkit.ExternalPrograms;
import io.fairway.testkit.ThreadNetns;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link RouteTable} against a real kernel, in a network namespace of the test's own: the socket is
 * opened on a thread that entered the namespace, and {@code ip route} (run inside it) is the oracle
 * for what the kernel holds.
 */
class RouteTableNetnsTest {
  private static final int TABLE = 100;
  private String ns;
  private String ip;

  @BeforeEach
  void namespace() throws Exception {
    ip = ExternalPrograms.require("ip", "/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip").toString();
    ExternalPrograms.requireThat(
        "root".equals(System.getProperty("user.name")), () -> "network namespaces need root");
    ns = "fwr-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0xffff));
    sh(ip, "netns", "add", ns);
    sh(ip, "-n", ns, "link", "set", "lo", "up");
    // this kernel has no dummy interfaces; one end of a veth pair holds an address as well
    sh(ip, "-n", ns, "link", "add", "veth0", "type", "veth", "peer", "name", "veth1");
    sh(ip, "-n", ns, "link", "set", "veth0", "up");
    sh(ip, "-n", ns, "addr", "add", "192.0.2.20/32", "dev", "veth0");
  }

  @AfterEach
  void removeNamespace() throws Exception {
    if (ns != null) {
      sh(ip, "netns", "del", ns);
    }
  }

  @Test
  void addsListsAndRemovesHostRoutesOfItsOwnProtocol() throws Exception {
    String shown =
        inNetns(
            () -> {
              try (RouteTable t = RouteTable.open(TABLE)) {
                HostRoute v4 = t.routeFor(InetAddress.getByName("192.0.2.10"));
                HostRoute v6 = t.routeFor(InetAddress.getByName("2001:db8::10"));
                assertThat(v4.ifindex()).isEqualTo(HostRoute.LOOPBACK);
                assertThat(t.add(v4)).isTrue();
                assertThat(t.add(v4)).as("a second add is not an error").isFalse();
                assertThat(t.add(v6)).isTrue();
                assertThat(t.list()).containsExactlyInAnyOrder(v4, v6);
                return sh(ip, "-n", ns, "route", "show", "table", "all", "proto", "250");
              }
            });
    assertThat(shown).contains("192.0.2.10 dev lo table 100");
    assertThat(sh(ip, "-n", ns, "-6", "route", "show", "table", "100"))
        .contains("2001:db8::10 dev lo proto 250");
  }

  @Test
  void aRouteGoesThroughTheInterfaceThatHoldsTheAddress() throws Exception {
    inNetns(
        () -> {
          try (RouteTable t = RouteTable.open(TABLE)) {
            HostRoute r = t.routeFor(InetAddress.getByName("192.0.2.20"));
            assertThat(r.ifindex()).isNotEqualTo(HostRoute.LOOPBACK);
            t.add(r);
            return null;
          }
        });
    assertThat(sh(ip, "-n", ns, "route", "show", "table", "100"))
        .contains("192.0.2.20 dev veth0 proto 250");
  }

  @Test
  void removesOnlyItsOwnRoutesAndSeesDrift() throws Exception {
    // someone else's route in the same table, and a stale one of ours from a crashed run
    sh(
        ip,
        "-n",
        ns,
        "route",
        "add",
        "192.0.2.30/32",
        "dev",
        "lo",
        "table",
        "100",
        "proto",
        "static");
    sh(ip, "-n", ns, "route", "add", "192.0.2.31/32", "dev", "lo", "table", "100", "proto", "250");
    sh(ip, "-n", ns, "route", "add", "192.0.2.32/32", "dev", "lo", "table", "101", "proto", "250");
    inNetns(
        () -> {
          try (RouteTable t = RouteTable.open(TABLE)) {
            assertThat(t.list())
                .extracting(r -> r.address().getHostAddress())
                .containsExactly("192.0.2.31");
            HostRoute mine = t.routeFor(InetAddress.getByName("192.0.2.10"));
            t.add(mine);
            sh(ip, "-n", ns, "route", "del", "192.0.2.10/32", "table", "100");
            assertThat(t.list()).as("an operator deleted it: drift").doesNotContain(mine);
            assertThat(t.remove(mine)).as("removing a gone route is not an error").isFalse();
            assertThat(t.add(mine)).as("repaired").isTrue();
            assertThat(t.removeAll()).isEqualTo(2);
            assertThat(t.list()).isEmpty();
            return null;
          }
        });
    String left = sh(ip, "-n", ns, "route", "show", "table", "all");
    assertThat(left).contains("192.0.2.30 dev lo table 100 proto static");
    assertThat(left).contains("192.0.2.32 dev lo table 101 proto 250");
    assertThat(left).doesNotContain("192.0.2.31").doesNotContain("192.0.2.10 ");
  }

  @Test
  void theKernelsRefusalNamesTheRoute() throws Exception {
    inNetns(
        () -> {
          try (RouteTable t = RouteTable.open(TABLE)) {
            HostRoute noSuchInterface =
                new HostRoute(InetAddress.getByName("192.0.2.10"), 9999, TABLE);
            assertThatThrownBy(() -> t.add(noSuchInterface))
                .isInstanceOf(NetlinkException.class)
                .hasMessageContaining("adding route 192.0.2.10/32");
            return null;
          }
        });
  }

  interface Body<T> {
    T run() throws Exception;
  }

  /** Runs {@code body} on a thread inside the namespace: sockets it opens belong there. */
  private <T> T inNetns(Body<T> body) throws Exception {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                ThreadNetns.enter(ns);
              } catch (IllegalStateException e) {
                result.completeExceptionally(e);
                return;
              }
              try {
                result.complete(body.run());
              } catch (Throwable e) {
                result.completeExceptionally(e);
              }
            });
    t.start();
    try {
      return result.get(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof Exception ex) {
        throw ex;
      }
      throw (Error) e.getCause();
    }
  }

  static String sh(String... cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException(String.join(" ", cmd) + ": " + out);
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }
}
