package io.fairway.director.sched;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Data-plane threads open and expire connections while the control plane changes weights and
 * thresholds: no connection is lost or counted twice, a quiesced server never gets a new
 * connection, and when everything has expired every count is back to zero and no server is left
 * flagged OVERLOAD.
 */
class ConcurrentAccountingTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"rr", "wrr", "wlc", "mh", "twos"})
  void countsStayExactUnderConcurrentChange(String sched) throws Exception {
    SchedService vs =
        Schedulers.service(
            sched,
            List.of(),
            List.of(
                DestSpec.of("10.0.0.1", 80, 1).withThresholds(50, 10),
                    DestSpec.of("10.0.0.2", 80, 2),
                DestSpec.of("10.0.0.3", 80, 3).withThresholds(40, 0),
                    DestSpec.of("10.0.0.4", 80, 0)));
    SchedDest quiesced = vs.dests().get(3);
    SchedDest sorry = vs.setSorryServer(DestSpec.of("10.0.0.9", 80, 1));
    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      final int seed = t;
      Thread w =
          new Thread(
              () -> {
                List<Connection> open = new ArrayList<>();
                for (int i = 0; i < 10_000; i++) {
                  Connection c =
                      vs.open(
                          Flow.fromClient(
                              AddressFold.parse("192.0.2." + (i % 200 + 1)), 1024 + seed));
                  if (c == null) {
                    problems.add("refused although a sorry server exists");
                    continue;
                  }
                  if (quiesced.equals(c.dest())) problems.add("quiesced server got a connection");
                  if (i % 3 == 0) c.established();
                  open.add(c);
                  if (open.size() > 60) {
                    Connection old = open.remove(0);
                    if (i % 2 == 0) old.closing();
                    old.expire();
                  }
                }
                open.forEach(Connection::expire);
              });
      w.start();
      workers.add(w);
    }
    Thread control =
        new Thread(
            () -> {
              int k = 0;
              while (!stop.get()) {
                vs.edit(
                    DestSpec.of("10.0.0.2", 80, 1 + k % 4).withThresholds(k % 2 == 0 ? 0 : 30, 0));
                k++;
              }
            });
    control.start();
    for (Thread w : workers) w.join(60_000);
    stop.set(true);
    control.join(10_000);
    assertThat(problems).isEmpty();
    for (SchedDest d : vs.dests()) {
      assertThat(d.activeConns()).as(d.name()).isZero();
      assertThat(d.inactiveConns()).as(d.name()).isZero();
    }
    assertThat(sorry.totalConns()).isZero();
    // The last expiries cleared every flag (count 0 is below any lower mark).
    vs.dests().forEach(d -> assertThat(d.overloaded()).as(d.name()).isFalse());
  }
}
