package io.fairway.bench.director;

import io.fairway.director.AbstractDirector;
import io.fairway.director.Backend;
import io.fairway.director.Member;
import io.fairway.director.varnish.FallbackDirector;
import io.fairway.director.varnish.HashDirector;
import io.fairway.director.varnish.RandomDirector;
import io.fairway.director.varnish.RoundRobinDirector;
import io.fairway.director.varnish.ShardDirector;
import io.fairway.director.varnish.Vrnd;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Directors and keys shared by the director benchmarks. */
final class Fixtures {
  private Fixtures() {}

  static AbstractDirector<?> director(String kind, int members) {
    AbstractDirector<?> d =
        switch (kind) {
          case "round_robin" -> new RoundRobinDirector("d");
          case "fallback" -> new FallbackDirector("d");
          case "random" -> new RandomDirector("d");
          // varnishd's seeded generator behind its lock (the testable mode); not in the default
          // parameter list, pass -p director=random_vrnd
          case "random_vrnd" -> new RandomDirector("d", new Vrnd(1), null);
          case "hash" -> new HashDirector("d");
          case "shard" -> new ShardDirector("d");
          default -> throw new IllegalArgumentException(kind);
        };
    d.replaceAll(members(members));
    return d;
  }

  /** Members with weights 1..3, so weighted walks are not degenerate. */
  static List<Member> members(int n) {
    List<Member> l = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      l.add(Member.of(Backend.named("backend-" + i), 1 + (i % 3)));
    }
    return l;
  }

  /** Members with weight 1: a shard ring of exactly n x replicas points. */
  static List<Member> unitMembers(int n) {
    List<Member> l = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      l.add(Member.of(Backend.named("backend-" + i), 1));
    }
    return l;
  }

  /** 4096 random unsigned 32-bit keys (a power of two so the index is a mask). */
  static long[] keys() {
    SplittableRandom r = new SplittableRandom(42);
    long[] k = new long[4096];
    for (int i = 0; i < k.length; i++) {
      k[i] = r.nextLong() & 0xFFFF_FFFFL;
    }
    return k;
  }
}
