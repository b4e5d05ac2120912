package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.testkit.RecordingTable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Whatever the order of verdicts, weight changes and quorum transitions, the table the applier has
 * written equals the table it believes in ({@link Applier#desired()}), no call is refused, and the
 * pool is never empty while a sorry server is configured and quorum is lost.
 */
class ApplierPropertyTest {

  record Step(int kind, int server, int value) {}

  @Provide
  Arbitrary<List<Step>> steps() {
    return net.jqwik.api.Combinators.combine(
            Arbitraries.integers().between(0, 3),
            Arbitraries.integers().between(0, 3),
            Arbitraries.integers().between(-2, 5))
        .as(Step::new)
        .list()
        .ofMaxSize(40);
  }

  @Property(tries = 300)
  void theTableAlwaysMatchesWhatTheApplierBelieves(
      @ForAll("steps") List<Step> steps, @ForAll boolean sorryInhibit, @ForAll boolean startUp)
      throws Exception {
    RecordingTable table = new RecordingTable();
    List<ServerBinding> servers =
        List.of(
            rs("a", "10.16.1.1", 1),
            inhibit("b", "10.16.1.2", 2),
            rs("c", "10.16.1.3", 3),
            inhibit("d", "10.16.1.4", 1));
    Applier a =
        new Applier(
            table,
            config(
                web(servers.toArray(ServerBinding[]::new)).withSorryServer(SORRY, sorryInhibit)));
    a.init("web", new InitialState(startUp ? Set.of("a", "b") : Set.of(), startUp));
    check(a, table);
    for (Step s : steps) {
      String name = servers.get(s.server()).name();
      switch (s.kind()) {
        case 0 -> a.setAlive("web", name, true);
        case 1 -> a.setAlive("web", name, false);
        case 2 -> a.setWeight("web", name, s.value());
        default -> a.quorum("web", s.value() > 1);
      }
      check(a, table);
    }
  }

  private static void check(Applier a, RecordingTable table) throws Exception {
    Map<DestKey, Dest> want = new HashMap<>(a.desired().get(WEB).dests());
    assertThat(table.dests.get(WEB)).isEqualTo(want);
    assertThat(table.refused).isEmpty();
    if (a.sorryInstalled("web")) {
      assertThat(table.weight(WEB, SORRY.key())).isEqualTo(1);
    }
  }
}
