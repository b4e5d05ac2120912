package io.fairway.vrrp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.model.vrrp.VrrpConfig;
import io.fairway.vrrp.io.Link;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The start-up check against this machine's interfaces (loopback, which every host has). */
class SystemCheckTest {

  private static VrrpConfig parse(String text) {
    return KeepalivedConfig.parse("keepalived.conf", text, Path.of("."), ParseOptions.defaults())
        .config()
        .vrrp();
  }

  private static String instance(String name, String vip) {
    return "vrrp_instance "
        + name
        + " {\n  interface lo\n  virtual_router_id 7\n  priority 100\n"
        + "  virtual_ipaddress {\n    "
        + vip
        + "\n  }\n}\n";
  }

  @Test
  void anIpv6InstanceOnAnInterfaceWithoutALinkLocalAddressIsRefusedNamingBoth() {
    // Loopback has ::1 at most, never an fe80:: address: there is nothing to send IPv6 adverts
    // from.
    assumeTrue(
        Link.read("lo", List.of()).orElseThrow().ipv6LinkLocal().isEmpty(),
        "lo has an IPv6 link-local address on this host");
    VrrpConfig c = parse(instance("V6", "2001:db8::7/64"));

    VrrpStartException e =
        catchThrowableOfType(VrrpStartException.class, () -> SystemCheck.links(c, Set.of()));

    assertThat(e).isNotNull();
    assertThat(e.problems())
        .singleElement()
        .asString()
        .matches(
            "keepalived\\.conf:\\d+: vrrp_instance V6: interface lo has no IPv6 link-local"
                + " address to send adverts from");
  }

  @Test
  void anIpv4InstanceOnAnInterfaceWithAnAddressPasses() throws Exception {
    VrrpConfig c = parse(instance("V4", "10.16.0.7/24"));

    assertThat(SystemCheck.links(c, Set.of())).containsOnlyKeys("V4");
  }
}
