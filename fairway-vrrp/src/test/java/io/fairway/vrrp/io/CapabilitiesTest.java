package io.fairway.vrrp.io;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The capabilities VRRP needs, read from a /proc/PID/status text. */
class CapabilitiesTest {
  private static String status(String capEff) {
    return "Name:\tjava\nUmask:\t0022\nCapInh:\t0000000000000000\nCapPrm:\t"
        + capEff
        + "\nCapEff:\t"
        + capEff
        + "\nCapBnd:\t000001ffffffffff\n";
  }

  @Test
  void rootHasEverythingVrrpNeeds() {
    assertThat(Capabilities.missing(status("000001ffffffffff"))).isEmpty();
  }

  @Test
  void fairwayServiceHasNetAdminAndNetRaw() {
    // CAP_NET_ADMIN (12) and CAP_NET_RAW (13), as fairway.service grants them.
    assertThat(Capabilities.missing(status("0000000000003000"))).isEmpty();
  }

  @Test
  void theUserspaceUnitLacksNetAdmin() {
    // CAP_NET_BIND_SERVICE (10) and CAP_NET_RAW (13), as fairway-userspace.service grants them.
    assertThat(Capabilities.missing(status("0000000000002400"))).containsExactly("CAP_NET_ADMIN");
  }

  @Test
  void anUnprivilegedUserLacksBoth() {
    assertThat(Capabilities.missing(status("0000000000000000")))
        .containsExactly("CAP_NET_ADMIN", "CAP_NET_RAW");
  }

  @Test
  void anUnreadableStatusClaimsNothing() {
    assertThat(Capabilities.missing("Name:\tjava\n")).isEmpty();
    assertThat(Capabilities.missing("CapEff:\tzz\n")).isEmpty();
  }
}
