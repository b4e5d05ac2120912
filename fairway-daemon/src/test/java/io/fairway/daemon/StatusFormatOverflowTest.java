package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.apply.VirtualServerStatus;
import io.fairway.apply.VirtualServerStatus.RealServerStatus;
import io.fairway.table.Dest;
import io.fairway.table.DestEntry;
import io.fairway.table.Protocol;
import io.fairway.table.Ramp;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Stats;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** fairway status tells a sorry server taking overflow and a server in slow start apart. */
class StatusFormatOverflowTest {
  static InetAddress ip(String s) throws Exception {
    return InetAddress.getByName(s);
  }

  @Test
  void overflowAndSlowStartAreShownWithTheWeightInForce() throws Exception {
    Service svc = Service.of(ServiceKey.of(Protocol.TCP, ip("10.16.0.1"), 80), "wrr");
    Dest a = Dest.of(ip("10.16.1.1"), 80, 10);
    Dest b = Dest.of(ip("10.16.1.2"), 80, 10);
    Dest sorry = Dest.of(ip("10.16.9.9"), 80, 1);
    List<ServiceEntry> table =
        List.of(
            new ServiceEntry(
                svc,
                List.of(
                    new DestEntry(a, 4, 0, 0, Stats.ZERO),
                    new DestEntry(b.withWeight(3), 4, 0, 0, Stats.ZERO),
                    new DestEntry(sorry, 7, 0, 0, Stats.ZERO)),
                Stats.ZERO));
    VirtualServerStatus vs =
        new VirtualServerStatus(
            "web",
            List.of(svc),
            true,
            true,
            sorry,
            false,
            List.of(
                new RealServerStatus("a", a, true, true, 10, false, 0, Ramp.NONE, false),
                new RealServerStatus("b", b, true, true, 10, false, 3, Ramp.NONE, false)));

    String out = StatusFormat.render(table, List.of(vs), Map.of());
    assertThat(out)
        .containsPattern(
            "-> 10\\.16\\.9\\.9:80 +Masq +1 +7 +0 +overflow +sorry server \\(pool full");
    assertThat(out)
        .containsPattern("-> 10\\.16\\.1\\.2:80 +Masq +3 .*b \\(slow start: weight 3 of 10\\)");
    assertThat(out).doesNotContainPattern("10\\.16\\.1\\.1:80 .*slow start");

    // Standing by at weight 0: idle, not overflow.
    List<ServiceEntry> idle =
        List.of(
            new ServiceEntry(
                svc, List.of(new DestEntry(sorry.withWeight(0), 0, 0, 0, Stats.ZERO)), Stats.ZERO));
    assertThat(StatusFormat.render(idle, List.of(vs), Map.of()))
        .containsPattern("-> 10\\.16\\.9\\.9:80 +Masq +0 +0 +0 +idle +sorry server\\n");
  }
}
