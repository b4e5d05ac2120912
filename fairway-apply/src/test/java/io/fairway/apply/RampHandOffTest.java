package io.fairway.apply;

import static io.fairway.apply.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Ramp;
import io.fairway.table.RampTarget;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * slow_start on a table that ramps in its own scheduler ({@link RampTarget}, the userspace proxy):
 * the applier hands the ramp over before it adds the server, writes its full weight and steps
 * nothing, so the two planes are never ramped twice; going down ends the ramp in the table; the
 * ramp hook fires once per ramp and {@link Applier#rampsActive} ends with the ramp's time.
 */
class RampHandOffTest {
  final AtomicLong clock = new AtomicLong(1_000_000_000L);
  final List<String> log = new ArrayList<>();

  /** Records table writes and ramps in one sequence. */
  final class RampingTable implements Table, RampTarget {
    @Override
    public void addService(Service s) {}

    @Override
    public void setService(Service s) {}

    @Override
    public void delService(ServiceKey k) {}

    @Override
    public void addDest(ServiceKey s, Dest d) {
      log.add("add " + d.key() + " w=" + d.weight());
    }

    @Override
    public void setDest(ServiceKey s, Dest d) {
      log.add("set " + d.key() + " w=" + d.weight());
    }

    @Override
    public void delDest(ServiceKey s, DestKey d) {
      log.add("del " + d);
    }

    @Override
    public List<ServiceEntry> list() {
      return List.of();
    }

    @Override
    public void flush() {}

    @Override
    public void ramp(ServiceKey s, DestKey d, Ramp r) throws TableException {
      log.add("ramp " + d + " " + r.elapsed().toMillis() + "ms/" + r.duration().toSeconds() + "s");
    }
  }

  static ServerBinding slow(String name, String addr, int weight, int seconds) {
    return new ServerBinding(
        name, Dest.of(ip(addr), 80, weight), false, weight, Duration.ofSeconds(seconds));
  }

  @Test
  void theRampIsHandedOverBeforeTheAddAndTheFullWeightWritten() throws Exception {
    Applier a =
        new Applier(
            new RampingTable(),
            config(web(rs("a", "10.16.1.1", 10), slow("b", "10.16.1.2", 1, 10))),
            clock::get);
    AtomicInteger started = new AtomicInteger();
    a.onRampStart(started::incrementAndGet);
    a.init("web", up("a"));
    assertThat(a.rampsInTable()).isTrue();
    assertThat(a.rampsActive()).isFalse();
    log.clear();

    a.setAlive("web", "b", true);
    DestKey b = key("10.16.1.2");
    // Weight 1 ramps too: the scheduler scales it, nothing to step.
    assertThat(log).containsExactly("ramp " + b + " 0ms/10s", "add " + b + " w=1");
    assertThat(started).hasValue(1);
    assertThat(a.rampsActive()).isTrue();
    assertThat(a.desired().get(WEB).dests().get(b).weight()).isEqualTo(1);
    assertThat(a.status().get(0).servers().get(1).rampsInScheduler()).isTrue();

    log.clear();
    for (int i = 0; i < 120; i++) {
      clock.addAndGet(100_000_000L);
      assertThat(a.stepSlowStarts()).isZero();
    }
    assertThat(log).as("nothing stepped in the table").isEmpty();
    assertThat(a.rampsActive()).as("over with its time").isFalse();
    assertThat(a.status().get(0).servers().get(1).ramping()).isFalse();
    // Drift repair wants what was written: the full weight.
    assertThat(a.desired().get(WEB).dests().get(b).weight()).isEqualTo(1);
  }

  @Test
  void goingDownEndsTheRampInTheTableAndComingBackStartsANewOne() throws Exception {
    Applier a =
        new Applier(
            new RampingTable(),
            config(web(rs("a", "10.16.1.1", 10), slow("b", "10.16.1.2", 10, 10))),
            clock::get);
    AtomicInteger started = new AtomicInteger();
    a.onRampStart(started::incrementAndGet);
    a.init("web", up("a"));
    a.setAlive("web", "b", true);
    clock.addAndGet(3_000_000_000L);
    log.clear();
    a.setAlive("web", "b", false);
    DestKey b = key("10.16.1.2");
    assertThat(log).containsExactly("ramp " + b + " 0ms/0s", "del " + b);
    assertThat(a.rampsActive()).isFalse();
    log.clear();
    a.setAlive("web", "b", true);
    assertThat(log).containsExactly("ramp " + b + " 0ms/10s", "add " + b + " w=10");
    assertThat(started).hasValue(2);
    // The operator's ready restarts it where it stands.
    clock.addAndGet(2_000_000_000L);
    log.clear();
    assertThat(a.startSlowStart("web", "b")).isTrue();
    assertThat(log).containsExactly("ramp " + b + " 0ms/10s", "set " + b + " w=10");
    assertThat(started).hasValue(3);
  }
}
