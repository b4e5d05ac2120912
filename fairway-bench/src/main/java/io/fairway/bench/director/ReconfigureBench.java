package io.fairway.bench.director;

import io.fairway.director.Member;
import io.fairway.director.varnish.ShardDirector;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * Shard reconfiguration at 1,000 members x 67 replicas: building the ring from nothing (every point
 * hashed), changing membership on a live director (points of unchanged members reused), and a
 * health flip (ring reused, only the snapshot is new).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@State(Scope.Thread)
public class ReconfigureBench {

  @Param({"1000"})
  public int members;

  List<Member> all;
  ShardDirector live;
  Member extra;
  boolean present;
  boolean up;

  @Setup(Level.Trial)
  public void setup() {
    all = Fixtures.unitMembers(members);
    live = new ShardDirector("live");
    live.replaceAll(all.subList(0, members - 1));
    extra = all.get(members - 1);
  }

  @Benchmark
  public ShardDirector coldBuild() {
    ShardDirector d = new ShardDirector("cold");
    d.replaceAll(all);
    return d;
  }

  @Benchmark
  public ShardDirector addOrRemoveOneMember() {
    if (present) {
      live.remove(extra.name());
    } else {
      live.add(extra);
    }
    present = !present;
    return live;
  }

  @Benchmark
  public ShardDirector healthFlip() {
    up = !up;
    live.setHealthy("backend-7", up);
    return live;
  }
}
