package io.fairway.daemon.announce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fairway.apply.VirtualServerStatus;
import io.fairway.config.model.Announcement;
import io.fairway.config.model.base.Location;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The daemon's announcing over tables kept in memory: start, reload, on/off, stop. */
class AnnouncingTest {
  static final InetAddress A = AnnouncerTest.A;
  static final InetAddress STALE = AnnouncerTest.addr("192.0.2.99");

  final Map<Integer, AnnouncerTest.MemoryRoutes> tables = new HashMap<>();
  final AtomicReference<List<VirtualServerStatus>> status =
      new AtomicReference<>(List.of(AnnouncerTest.status("web", true, true, false)));
  final List<String> events = new ArrayList<>();
  final Announcing announcing =
      new Announcing(
          t -> tables.computeIfAbsent(t, k -> new AnnouncerTest.MemoryRoutes()),
          status::get,
          events::add);

  static AnnounceSettings settings(int table, Map<String, InetAddress> services) {
    return new AnnounceSettings(
        new Announcement(
            OptionalInt.of(table), Duration.ofSeconds(2), false, Location.NONE, Location.NONE),
        services);
  }

  @Test
  void staleRoutesGoAtStartAndNothingIsAnnouncedBeforeThePass() throws Exception {
    tables.computeIfAbsent(100, k -> new AnnouncerTest.MemoryRoutes()).add(STALE);
    announcing.configure(settings(100, Map.of("web", A)));
    assertThat(table(100).held).isEmpty();
    assertThat(announcing.view()).containsExactly(Map.entry("192.0.2.10", false));
    assertThat(announcing.reconcile()).containsExactly("announced 192.0.2.10");
    assertThat(events).containsExactly("announced 192.0.2.10");
    assertThat(table(100).held).containsExactly(A);
  }

  @Test
  void aReloadMovesTheRoutesToANewTableAndDropsRemovedServices() throws Exception {
    announcing.configure(settings(100, Map.of("web", A)));
    announcing.reconcile();
    announcing.configure(settings(101, Map.of("web", A)));
    assertThat(table(100).held).as("the old table emptied").isEmpty();
    announcing.reconcile();
    assertThat(table(101).held).containsExactly(A);
    announcing.configure(settings(101, Map.of()));
    assertThat(announcing.reconcile()).containsExactly("withdrew 192.0.2.10");
    announcing.configure(new AnnounceSettings(Announcement.NONE, Map.of()));
    assertThat(announcing.table()).isEqualTo(-1);
    assertThat(announcing.reconcile()).isEmpty();
  }

  @Test
  void offIsKeptAcrossAReloadToAnotherTableAndTheStopWithdrawsForGood() throws Exception {
    announcing.configure(settings(100, Map.of("web", A)));
    announcing.reconcile();
    assertThat(announcing.enabled(false)).isTrue();
    assertThat(table(100).held).isEmpty();
    announcing.configure(settings(102, Map.of("web", A)));
    announcing.reconcile();
    assertThat(table(102).held).isEmpty();
    assertThat(announcing.enabled(true)).isTrue();
    assertThat(table(102).held).containsExactly(A);
    assertThat(announcing.withdraw()).as("something was announced").isTrue();
    assertThat(table(102).held).isEmpty();
    announcing.enabled(true);
    assertThat(table(102).held).as("no route comes back while stopping").isEmpty();
    assertThat(announcing.withdraw()).as("nothing left to wait for").isFalse();
    announcing.close();
  }

  @Test
  void closeRemovesEveryRouteOfTheTable() throws Exception {
    announcing.configure(settings(100, Map.of("web", A)));
    announcing.reconcile();
    table(100).add(STALE);
    announcing.close();
    assertThat(table(100).held).isEmpty();
  }

  @Test
  void aTableThatCannotBeOpenedKeepsThePreviousSettings() throws Exception {
    Announcing failing =
        new Announcing(
            t -> {
              if (t == 200) {
                throw new IOException("netlink: EPERM");
              }
              return tables.computeIfAbsent(t, k -> new AnnouncerTest.MemoryRoutes());
            },
            status::get,
            events::add);
    failing.configure(settings(100, Map.of("web", A)));
    failing.reconcile();
    assertThatThrownBy(() -> failing.configure(settings(200, Map.of("web", A))))
        .hasMessage("netlink: EPERM");
    assertThat(failing.table()).isEqualTo(100);
    assertThat(table(100).held).containsExactly(A);
    failing.close();
  }

  private AnnouncerTest.MemoryRoutes table(int number) {
    return Objects.requireNonNull(tables.get(number), "table " + number + " was never opened");
  }
}
