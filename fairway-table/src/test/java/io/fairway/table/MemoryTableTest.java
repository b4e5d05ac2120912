package io.fairway.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** The kernel's contract, held by the in-memory table; plus what only the memory table offers. */
class MemoryTableTest extends TableContract {
  @Override
  protected Table newTable() {
    return new MemoryTable();
  }

  @Test
  void extraSchedulerNamesCanBeAllowed() throws Exception {
    MemoryTable t = new MemoryTable(Set.of("rr", "shard"), Set.of());
    t.addService(Service.of(WEB, "shard"));
    assertThat(t.list()).hasSize(1);
  }

  @Test
  void tunnelSettingsTheKernelDoesNotKeepAreNormalizedAway() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    Dest ipipWithCsum =
        new Dest(
            ip("10.16.1.1"),
            80,
            ForwardingMethod.TUNNEL,
            1,
            0,
            0,
            new Tunnel(Tunnel.Type.IPIP, 0, Tunnel.Checksum.CSUM));
    Dest greWithPort =
        new Dest(
            ip("10.16.1.2"),
            80,
            ForwardingMethod.TUNNEL,
            1,
            0,
            0,
            new Tunnel(Tunnel.Type.GRE, 999, Tunnel.Checksum.CSUM));
    table.addDest(WEB, ipipWithCsum);
    table.addDest(WEB, greWithPort);
    assertThat(table.list().get(0).dests())
        .extracting(DestEntry::dest)
        .containsExactly(
            new Dest(ip("10.16.1.1"), 80, ForwardingMethod.TUNNEL, 1, 0, 0, null),
            new Dest(
                ip("10.16.1.2"),
                80,
                ForwardingMethod.TUNNEL,
                1,
                0,
                0,
                new Tunnel(Tunnel.Type.GRE, 0, Tunnel.Checksum.CSUM)));
    Dest nat = nat("10.16.1.3", 80, 1);
    assertThat(nat.normalized()).isSameAs(nat);
  }

  @Test
  void countersAreAlwaysZero() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    table.addDest(WEB, nat("10.16.1.1", 80, 1));
    ServiceEntry e = table.list().get(0);
    assertThat(e.stats()).isEqualTo(Stats.ZERO);
    assertThat(e.dests().get(0).stats()).isEqualTo(Stats.ZERO);
  }
}
