package io.fairway.bench.director;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Request;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Pick latency per director and member count, with precomputed keys (hashing is measured in {@link
 * KeyHashBench}). Run with {@code -t 1} and {@code -t 2} for one and two threads, and {@code -prof
 * gc} for allocation per pick.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
public class DirectorPickBench {

  /** The director, shared by all benchmark threads (as in a data plane). */
  @State(Scope.Benchmark)
  public static class Shared {
    @Param({"round_robin", "fallback", "random", "hash", "shard"})
    public String director;

    @Param({"10", "100", "1000"})
    public int members;

    AbstractDirector<?> d;
    Request[] requests;

    @Setup(Level.Trial)
    public void setup() {
      d = Fixtures.director(director, members);
      long[] keys = Fixtures.keys();
      requests = new Request[keys.length];
      for (int i = 0; i < keys.length; i++) {
        requests[i] = Request.ofKey(keys[i]);
      }
    }
  }

  /** Each thread walks the key array on its own. */
  @State(Scope.Thread)
  public static class Cursor {
    int i;
  }

  @Benchmark
  public @Nullable Backend pick(Shared s, Cursor c) {
    return s.d.pick(s.requests[c.i++ & 4095]);
  }
}
