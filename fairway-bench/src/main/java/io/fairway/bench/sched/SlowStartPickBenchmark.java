package io.fairway.bench.sched;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.sched.DestSpec;
import io.fairway.director.sched.Flow;
import io.fairway.director.sched.Persistence;
import io.fairway.director.sched.SchedDest;
import io.fairway.director.sched.SchedService;
import io.fairway.director.sched.Schedulers;
import io.fairway.director.varnish.FallbackDirector;
import io.fairway.director.varnish.RandomDirector;
import io.fairway.director.varnish.RoundRobinDirector;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Objects;
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
 * A pick through the path the userspace data plane takes ({@code SchedService.pick}, a Varnish
 * director's {@code pick}), with and without one of the servers in its slow start (a one-hour ramp,
 * so it stays ramping for the run): what slow start costs per pick, and that it allocates nothing
 * ({@code -prof gc}).
 *
 * <p>Run: {@code java -jar fairway-bench/target/benchmarks.jar SlowStartPickBenchmark -wi 2 -i 3 -f
 * 1 -w 1s -r 1s -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SlowStartPickBenchmark {

  @Param({"rr", "wrr", "lc", "wlc", "fo", "round_robin", "random", "fallback"})
  public String algorithm;

  @Param({"false", "true"})
  public boolean ramping;

  @Param({"10", "100"})
  public int servers;

  // One of the two, by whether the algorithm names a kernel scheduler or a director.
  private @Nullable SchedService service;
  private @Nullable AbstractDirector<?> director;
  private Flow[] flows;
  private int i;

  @Setup
  public void setUp() throws UnknownHostException {
    Random r = new Random(42);
    long hour = TimeUnit.HOURS.toNanos(1);
    if (Schedulers.isKnown(algorithm)) {
      service =
          new SchedService(
              Schedulers.create(algorithm, List.of()),
              Persistence.NONE,
              System::currentTimeMillis,
              System::nanoTime);
      for (int k = 0; k < servers; k++) {
        service.add(DestSpec.of("10.1." + (k / 250) + "." + (k % 250 + 1), 80, 1 + r.nextInt(5)));
      }
      if (ramping) {
        service.ramp(service.dests().get(servers / 2), 0, hour);
      }
    } else {
      director =
          switch (algorithm) {
            case "round_robin" -> new RoundRobinDirector("b");
            case "random" -> new RandomDirector("b");
            default -> new FallbackDirector("b");
          };
      for (int k = 0; k < servers; k++) {
        director.add(Member.of(Backend.named("s" + k), 1 + r.nextInt(5)));
      }
      if (ramping) {
        // fallback: the first member, which takes every request, is the one ramping.
        director.ramp(algorithm.equals("fallback") ? "s0" : "s" + servers / 2, 0, hour);
      }
    }
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
  public @Nullable Object pick() {
    if (service != null) {
      SchedDest d = service.pick(flows[i++ & 4095]);
      return d;
    }
    return Objects.requireNonNull(director, "setUp made a director, not a scheduler")
        .pick(Request.EMPTY);
  }
}
