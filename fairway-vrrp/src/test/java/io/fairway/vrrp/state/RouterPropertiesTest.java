package io.fairway.vrrp.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Invariants over random schedules of starts, kills, stops and restarts on one link. */
class RouterPropertiesTest {
  static final long S = 1_000_000_000L;
  static final long MS = 1_000_000L;

  record Step(int router, int what, int afterMs) {}

  @Provide
  Arbitrary<List<Step>> schedules() {
    return Arbitraries.integers()
        .between(0, 2)
        .flatMap(
            r ->
                Arbitraries.integers()
                    .between(0, 2)
                    .flatMap(
                        w -> Arbitraries.integers().between(0, 6000).map(ms -> new Step(r, w, ms))))
        .list()
        .ofMaxSize(12);
  }

  @Property(tries = 300)
  void oneMasterTheHighestAndShortOverlaps(
      @ForAll("schedules") List<Step> steps,
      @ForAll("priorities") List<Integer> prios,
      @ForAll boolean nopreemptOnLowest) {
    Lan lan = new Lan(MS);
    List<Router> routers = new ArrayList<>();
    boolean[] up = new boolean[3];
    for (int i = 0; i < 3; i++) {
      routers.add(router(i, prios.get(i), false));
      lan.add(routers.get(i));
      up[i] = true;
    }
    for (Step s : steps) {
      lan.runUntil(lan.now + s.afterMs() * MS);
      int i = s.router();
      switch (s.what()) {
        case 0 -> {
          if (up[i]) {
            lan.kill(routers.get(i));
            up[i] = false;
          }
        }
        case 1 -> {
          if (up[i]) {
            lan.stop(routers.get(i));
            up[i] = false;
          }
        }
        default -> {
          if (!up[i]) {
            Router fresh = router(i, prios.get(i), false);
            lan.alive.remove(routers.get(i));
            routers.set(i, fresh);
            lan.add(fresh);
            up[i] = true;
          }
        }
      }
    }
    // Quiet for long enough: every live router has settled.
    lan.runUntil(lan.now + 20 * S);
    int live = 0;
    int best = -1;
    for (int i = 0; i < 3; i++) {
      if (up[i]) {
        live++;
        if (best < 0 || prios.get(i) > prios.get(best)) {
          best = i;
        }
      }
    }
    assertThat(lan.masters()).isEqualTo(live > 0 ? 1 : 0);
    if (live > 0) {
      assertThat(routers.get(best).state()).as(lan.log.toString()).isEqualTo(State.MASTER);
    }
    // Two masters only while an advert is on the wire (1 ms here) or during a takeover race
    // bounded by one advert interval.
    assertThat(lan.worstOverlap).as(lan.log.toString()).isLessThanOrEqualTo(S);
  }

  @Provide
  Arbitrary<List<Integer>> priorities() {
    return Arbitraries.integers().between(1, 254).list().ofSize(3).uniqueElements();
  }

  static Router router(int i, int prio, boolean master) {
    return Lan.router("R" + i, prio, i + 1, master, true, 0);
  }
}
