package io.fairway.bench.director;

import io.fairway.director.varnish.VarnishHash;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** Key hashing on its own: {@code VRT_HashStrands32} (SHA-256) of a URL-sized string. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@State(Scope.Thread)
public class KeyHashBench {

  @Param({
    "/static/img/logo.png",
    "/api/v2/customers/8f14e45fceea167a5a36dedd4bea2543/orders?page=3&limit=50"
  })
  public String key;

  @Benchmark
  public long hashStrands32() {
    return VarnishHash.hash32(key);
  }
}
