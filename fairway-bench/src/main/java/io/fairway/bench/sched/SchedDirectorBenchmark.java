package io.fairway.bench.sched;

import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.Request;
import io.fairway.director.sched.SchedDirector;
import io.fairway.director.sched.SchedServer;
import io.fairway.director.sched.Schedulers;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
 * The same decision through the common {@code Director.pick(Request)} entry point the data plane
 * uses (IPv4 clients): checks that the adapter adds no allocation.
 *
 * <p>Run: {@code java -jar fairway-bench/target/benchmarks.jar SchedDirectorBenchmark -wi 2 -i 3 -f
 * 1 -w 1s -r 1s -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SchedDirectorBenchmark {

  @Param({"wlc", "sh", "mh"})
  public String sched;

  private SchedDirector director;
  private Request[] requests;
  private int i;

  @Setup
  public void setUp() throws Exception {
    director = new SchedDirector("vs", Schedulers.create(sched, List.of()));
    for (int k = 0; k < 100; k++) {
      director.add(Member.of(SchedServer.parse("10.1.0." + (k + 1) + ":80"), 1 + k % 5));
    }
    Random r = new Random(3);
    requests = new Request[4096];
    for (int k = 0; k < requests.length; k++) {
      byte[] a = {100, (byte) (64 + r.nextInt(64)), (byte) r.nextInt(256), (byte) r.nextInt(256)};
      requests[k] =
          Request.ofFlow(
              new InetSocketAddress(InetAddress.getByAddress(a), 1024 + r.nextInt(60000)), null);
    }
  }

  @Benchmark
  public @Nullable Backend pick() {
    return director.pick(requests[i++ & 4095]);
  }
}
