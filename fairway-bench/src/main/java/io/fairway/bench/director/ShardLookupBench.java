package io.fairway.bench.director;

import io.fairway.director.Backend;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.ShardParams;
import io.fairway.director.varnish.ShardRing;
import java.util.Arrays;
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
 * The shard target: a full shard pick (lookup, health check, return the backend) at 1,000 members x
 * 67 replicas against a bare {@link Arrays#binarySearch} over the same ring's points, same keys,
 * same run.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@State(Scope.Thread)
public class ShardLookupBench {

  @Param({"1000"})
  public int members;

  ShardDirector shard;
  int[] points; // the ring's points, biased so signed order is unsigned order
  long[] keys;
  int[] biasedKeys;
  int i;

  @Setup(Level.Trial)
  public void setup() {
    shard = new ShardDirector("d"); // 67 replicas, weight 1: 1,000 x 67 points
    shard.replaceAll(Fixtures.unitMembers(members));
    ShardRing ring = shard.state().ring();
    points = new int[ring.size()];
    for (int p = 0; p < points.length; p++) {
      points[p] = (int) (ring.point(p) ^ 0x8000_0000L);
    }
    keys = Fixtures.keys();
    biasedKeys = new int[keys.length];
    for (int k = 0; k < keys.length; k++) {
      biasedKeys[k] = (int) (keys[k] ^ 0x8000_0000L);
    }
  }

  @Benchmark
  public @Nullable Backend shardPick() {
    return shard.pick(keys[i++ & 4095], 0, ShardParams.DEFAULTS);
  }

  @Benchmark
  public int ringLookupOnly() {
    return shard.state().ring().lookup(keys[i++ & 4095]);
  }

  @Benchmark
  public int bareBinarySearch() {
    return Arrays.binarySearch(points, biasedKeys[i++ & 4095]);
  }
}
