package io.fairway.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet6Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class EndpointsTest {
  private static String v6(String s) throws Exception {
    byte[] b = InetAddress.getByName(s).getAddress();
    if (b.length == 4) { // Java folds ::ffff:a.b.c.d into IPv4; the kernel hands us 16 bytes
      b =
          new byte[] {
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, b[0], b[1], b[2], b[3]
          };
    }
    return Endpoints.formatAddress(Inet6Address.getByAddress(null, b, -1));
  }

  @Test
  void ipv6IsPrintedLikeInetNtop() throws Exception {
    assertThat(v6("2001:db8:0:0:0:0:0:1")).isEqualTo("2001:db8::1");
    assertThat(v6("0:0:0:0:0:0:0:1")).isEqualTo("::1");
    assertThat(v6("0:0:0:0:0:0:0:0")).isEqualTo("::");
    assertThat(v6("2001:db8:0:1:0:0:0:4")).isEqualTo("2001:db8:0:1::4");
    assertThat(v6("1:0:0:2:0:0:3:4")).isEqualTo("1::2:0:0:3:4");
    assertThat(v6("1:0:2:3:4:5:6:7")).isEqualTo("1:0:2:3:4:5:6:7");
    assertThat(v6("fe80:0:0:0:0:0:0:0")).isEqualTo("fe80::");
    assertThat(v6("2001:DB8:0:0:1:0:0:0")).isEqualTo("2001:db8:0:0:1::");
    assertThat(v6("::ffff:10.0.0.1")).isEqualTo("::ffff:10.0.0.1");
  }

  @Test
  void endpointsBracketIpv6() throws Exception {
    assertThat(Endpoints.format(InetAddress.getByName("2001:db8::1"), 80))
        .isEqualTo("[2001:db8::1]:80");
    assertThat(Endpoints.format(InetAddress.getByName("10.0.0.1"), 80)).isEqualTo("10.0.0.1:80");
  }
}
