package io.fairway.vrrp;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.vrrp.view.DropKind;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Each kind of source no VRRP router has, against the loopback interface (always there, with
 * 127.0.0.1/8 and ::1); a peer's address passes. The lab test ({@code VrrpAdvertSourceTest}) sends
 * the same kinds as frames between namespaces.
 */
class AdvertSourceFilterTest {
  final AdvertSourceFilter filter = new AdvertSourceFilter();
  final List<InetAddress> ours = List.of(ip("192.0.2.7"));

  static InetAddress ip(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  Optional<DropKind> check(String source) {
    return filter.check(ip(source), "lo", ours, 0);
  }

  @Test
  void sourcesNoRouterHasAreDroppedByKind() {
    assertThat(check("0.0.0.0")).contains(DropKind.SOURCE_UNSPECIFIED);
    assertThat(check("::")).contains(DropKind.SOURCE_UNSPECIFIED);
    assertThat(check("224.0.0.18")).contains(DropKind.SOURCE_MULTICAST);
    assertThat(check("ff02::12")).contains(DropKind.SOURCE_MULTICAST);
    assertThat(check("255.255.255.255")).contains(DropKind.SOURCE_BROADCAST);
    // 127.0.0.1/8 on lo: its subnet broadcast, and the address itself.
    assertThat(check("127.255.255.255")).contains(DropKind.SOURCE_BROADCAST);
    assertThat(check("127.0.0.1")).contains(DropKind.SOURCE_OURS);
    assertThat(check("::1")).contains(DropKind.SOURCE_OURS);
    // An instance's unicast_src_ip, on no interface here.
    assertThat(check("192.0.2.7")).contains(DropKind.SOURCE_OURS);
  }

  @Test
  void aPeersAddressPasses() {
    assertThat(check("10.99.0.2")).isEmpty();
    assertThat(check("fe80::1")).isEmpty();
    assertThat(filter.check(ip("10.99.0.2"), "no-such-interface", List.of(), 0)).isEmpty();
  }

  @Test
  void theSubnetBroadcastIsComputedFromThePrefix() throws Exception {
    NetworkInterface lo = NetworkInterface.getByName("lo");
    InterfaceAddress v4 =
        lo.getInterfaceAddresses().stream()
            .filter(a -> a.getAddress() instanceof java.net.Inet4Address)
            .findFirst()
            .orElseThrow();
    assertThat(v4.getNetworkPrefixLength()).isEqualTo((short) 8);
    assertThat(AdvertSourceFilter.subnetBroadcast(v4)).contains(ip("127.255.255.255"));
  }
}
