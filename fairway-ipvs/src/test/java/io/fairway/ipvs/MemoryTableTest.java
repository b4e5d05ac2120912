package io.fairway.ipvs;

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
  void countersAreAlwaysZero() throws Exception {
    table.addService(Service.of(WEB, "rr"));
    table.addDest(WEB, nat("10.16.1.1", 80, 1));
    ServiceEntry e = table.list().get(0);
    assertThat(e.stats()).isEqualTo(Stats.ZERO);
    assertThat(e.dests().get(0).stats()).isEqualTo(Stats.ZERO);
  }
}
