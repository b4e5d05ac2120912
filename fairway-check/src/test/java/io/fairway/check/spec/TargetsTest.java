package io.fairway.check.spec;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet6Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** Addresses in reasons are written the way operators write them (RFC 5952 for IPv6). */
class TargetsTest {
  static String c(String s) throws Exception {
    return Targets.compact((Inet6Address) InetAddress.getByName(s));
  }

  @Test
  void compactsTheLongestRunOfZeroGroups() throws Exception {
    assertThat(c("::1")).isEqualTo("::1");
    assertThat(c("::")).isEqualTo("::");
    assertThat(c("2001:db8:0:0:1:0:0:1")).isEqualTo("2001:db8::1:0:0:1");
    assertThat(c("2001:db8:0:0:0:0:2:1")).isEqualTo("2001:db8::2:1");
    assertThat(c("2001:db8:1:1:1:1:1:1")).isEqualTo("2001:db8:1:1:1:1:1:1");
    assertThat(c("2001:0:1:1:1:1:1:1"))
        .isEqualTo("2001:0:1:1:1:1:1:1"); // a single zero group stays
    assertThat(c("fe80::")).isEqualTo("fe80::");
  }
}
