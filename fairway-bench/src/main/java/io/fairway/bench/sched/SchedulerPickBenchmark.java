package io.fairway.bench.sched;

import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Flow;
import io.fairway.director.sched.KernelScheduler;
import io.fairway.director.sched.LoadSnapshot;
import io.fairway.director.sched.SchedDest;
import io.fairway.director.sched.SchedService;
import io.fairway.director.sched.Schedulers;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cost of one scheduling decision for a new connection, per scheduler and pool size. Servers have
 * weights 1..5 and a spread of live connection counts (so lc/wlc/sed/nq really compare); flows come
 * from 4096 distinct clients.
 *
 * <p>Run: {@code java -jar fairway-bench/target/benchmarks.jar SchedulerPickBenchmark -wi 2 -i 3 -f
 * 1 -w 1s -r 1s -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SchedulerPickBenchmark {

  @Param({"rr", "wrr", "lc", "wlc", "sed", "nq", "fo", "ovf", "sh", "dh", "mh", "twos"})
  public String sched;

  @Param({"10", "100", "1000"})
  public int servers;

  private KernelScheduler scheduler;
  private Flow[] flows;
  private int i;

  @Setup
  public void setUp() throws UnknownHostException {
    Random r = new Random(42);
    List<DestSpec> specs = new ArrayList<>();
    StringBuilder conns = new StringBuilder();
    for (int k = 0; k < servers; k++) {
      DestSpec d = DestSpec.of("10.1." + (k / 250) + "." + (k % 250 + 1), 80, 1 + r.nextInt(5));
      specs.add(d);
      conns
          .append(conns.length() == 0 ? "" : ",")
          .append(d.name())
          .append('=')
          .append(1 + r.nextInt(50))
          .append('/')
          .append(r.nextInt(200));
    }
    SchedService vs = Schedulers.service(sched, List.of(), specs);
    if (!sched.equals("ovf"))
      LoadSnapshot.parse(conns.toString()).applyTo(vs); // ovf would find all full
    scheduler = vs.scheduler();
    flows = new Flow[4096];
    for (int k = 0; k < flows.length; k++) {
      byte[] a = {100, (byte) (64 + r.nextInt(64)), (byte) r.nextInt(256), (byte) r.nextInt(256)};
      byte[] d = {(byte) 198, 51, 100, (byte) r.nextInt(256)};
      flows[k] =
          new Flow(
              InetAddress.getByAddress(a),
              1024 + r.nextInt(60000),
              InetAddress.getByAddress(d),
              80);
    }
  }

  @Benchmark
  public @Nullable SchedDest pick() {
    return scheduler.schedule(flows[i++ & 4095]);
  }
}
