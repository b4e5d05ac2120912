package io.fairway.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import io.fairway.apply.Applier;
import io.fairway.apply.InitialState;
import io.fairway.apply.ServerBinding;
import io.fairway.apply.ServiceBinding;
import io.fairway.director.sched.Connection;
import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Flow;
import io.fairway.director.sched.SchedService;
import io.fairway.director.sched.Schedulers;
import io.fairway.table.Dest;
import io.fairway.table.DestKey;
import io.fairway.table.Protocol;
import io.fairway.table.Service;
import io.fairway.table.ServiceEntry;
import io.fairway.table.ServiceKey;
import io.fairway.table.Table;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * slow_start as the userspace plane sees it: the applier steps the ramping server's weight in the
 * table, and the userspace scheduler (here wrr, the kernel's, as the proxy runs it) gives it a
 * share of new connections that follows the ramp. Deterministic: a clock moved by the test, no
 * sleeps. Tolerance: within 3 percentage points of weight / total weight in every step.
 */
class SlowStartShareTest {
  static final ServiceKey KEY = ServiceKey.of(Protocol.TCP, ip("10.16.0.1"), 80);

  static InetAddress ip(String s) {
    try {
      return InetAddress.getByName(s);
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /** A table of one service whose destinations are a userspace scheduler's servers. */
  static final class SchedulerTable implements Table {
    final SchedService service = new SchedService(Schedulers.create("wrr", List.of()));

    static DestSpec spec(Dest d) {
      return new DestSpec(
          "", d.address(), d.port(), d.weight(), d.upperThreshold(), d.lowerThreshold());
    }

    @Override
    public void addService(Service s) {}

    @Override
    public void setService(Service s) {}

    @Override
    public void delService(ServiceKey k) {}

    @Override
    public void addDest(ServiceKey s, Dest d) {
      service.add(spec(d));
    }

    @Override
    public void setDest(ServiceKey s, Dest d) {
      service.edit(spec(d));
    }

    @Override
    public void delDest(ServiceKey s, DestKey d) {
      service.remove(d.address(), d.port());
    }

    @Override
    public List<ServiceEntry> list() {
      return List.of();
    }

    @Override
    public void flush() {}
  }

  @Test
  void theRampingServersShareOfNewConnectionsFollowsItsWeight() throws Exception {
    AtomicLong clock = new AtomicLong();
    SchedulerTable table = new SchedulerTable();
    ServerBinding a = new ServerBinding("a", Dest.of(ip("10.16.1.1"), 80, 10), false, 10);
    ServerBinding b =
        new ServerBinding("b", Dest.of(ip("10.16.1.2"), 80, 10), false, 10, Duration.ofSeconds(10));
    Applier applier =
        new Applier(
            table,
            Map.of("web", ServiceBinding.of("web", Service.of(KEY, "wrr"), List.of(a, b))),
            clock::get);
    applier.init("web", new InitialState(Set.of("a"), true));
    applier.setAlive("web", "b", true);

    Flow flow = new Flow(ip("192.0.2.1"), 40000, ip("10.16.0.1"), 80);
    double previous = -1;
    for (int second = 0; second < 12; second++) {
      int toB = 0;
      int n = 0;
      for (int tick = 0; tick < 10; tick++) {
        applier.stepSlowStarts();
        for (int i = 0; i < 40; i++, n++) {
          Connection c = Objects.requireNonNull(table.service.open(flow), "its servers are up");
          if (c.dest().name().equals("10.16.1.2:80")) {
            toB++;
          }
          c.closing();
          c.expire();
        }
        clock.addAndGet(100_000_000L);
      }
      // During second s the ramp is at step s+1 of 10: weight s+1 against a's 10.
      int wb = Math.min(10, second + 1);
      double expected = wb / (10.0 + wb);
      double share = (double) toB / n;
      assertThat(share)
          .as("second %d: b's share", second)
          .isCloseTo(expected, org.assertj.core.data.Offset.offset(0.03));
      assertThat(share)
          .as("the share never falls during the ramp")
          .isGreaterThanOrEqualTo(previous - 0.03);
      previous = share;
    }
    assertThat(applier.rampWeight("web", "b")).isNull();
  }
}
