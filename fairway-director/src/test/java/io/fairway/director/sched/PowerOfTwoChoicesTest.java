package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class PowerOfTwoChoicesTest {

  @Test
  void ofTwoDrawsTheLessLoadedWins() {
    int[] draws = {0, 1};
    AtomicInteger i = new AtomicInteger();
    PowerOfTwoChoices twos = new PowerOfTwoChoices(bound -> draws[i.getAndIncrement() % 2]);
    SchedService vs = new SchedService(twos);
    vs.add(DestSpec.of("10.0.0.1", 80, 1).withName("a"));
    vs.add(DestSpec.of("10.0.0.2", 80, 1).withName("b"));
    // kernel order b, a: draw 0 → b, draw 1 → a
    LoadSnapshot.parse("b=3").applyTo(vs);
    assertThat(vs.pick(Flow.fromClient(AddressFold.parse("192.0.2.1"), 1)).name()).isEqualTo("a");
    LoadSnapshot.parse("a=3").applyTo(vs);
    assertThat(vs.pick(Flow.fromClient(AddressFold.parse("192.0.2.1"), 1)).name()).isEqualTo("b");
  }

  /**
   * For every draw sequence (jqwik picks the seed): a quiesced server is never chosen, and 3,000
   * connections over three equal servers stay within 30 of each other (1 % of the load). The bound
   * is the algorithm's, not a seed's: choosing the less loaded of two draws keeps the spread at a
   * few connections whatever the draws (over 10,000 seeds the largest seen here was 9, and 7 or
   * more in 10 of them), while one random draw per connection would spread them by about 26 per
   * server (the binomial's deviation) and break it in most runs.
   */
  @Property(tries = 200)
  void underSteadyLoadItBalancesAndNeverPicksQuiescedServers(@ForAll long seed) {
    java.util.Random random = new java.util.Random(seed);
    SchedService vs = new SchedService(new PowerOfTwoChoices(random::nextInt));
    for (DestSpec d :
        List.of(
            DestSpec.of("10.0.0.1", 80, 1),
            DestSpec.of("10.0.0.2", 80, 1),
            DestSpec.of("10.0.0.3", 80, 1),
            DestSpec.of("10.0.0.4", 80, 0))) {
      vs.add(d);
    }
    for (int k = 0; k < 3000; k++) vs.open(Flow.fromClient(AddressFold.parse("192.0.2.1"), 1));
    int max = vs.dests().subList(0, 3).stream().mapToInt(SchedDest::totalConns).max().orElseThrow();
    int min = vs.dests().subList(0, 3).stream().mapToInt(SchedDest::totalConns).min().orElseThrow();
    assertThat(vs.dests().get(3).totalConns()).isZero();
    assertThat(max - min).isLessThanOrEqualTo(30);
  }
}
