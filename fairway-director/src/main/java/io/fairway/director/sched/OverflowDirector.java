package io.fairway.director.sched;

import io.fairway.director.Backend;
import io.fairway.director.Director;
import io.fairway.director.Member;
import io.fairway.director.Request;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Overflow to the sorry server for <em>any</em> director (Varnish's round_robin, shard, ...): when
 * the director has no server for a request, the sorry server gets it instead of a refusal, and the
 * overflow is counted. For the kernel schedulers use {@link SchedDirector#setSorryServer}, which
 * also honours thresholds.
 */
public final class OverflowDirector implements Director {
  private final Director inner;
  private final Backend sorry;
  private final LongAdder overflowed = new LongAdder();

  public OverflowDirector(Director inner, Backend sorry) {
    if (inner == null || sorry == null)
      throw new IllegalArgumentException("director and sorry server are required");
    if (inner.members().stream().anyMatch(m -> m.name().equals(sorry.name()))) {
      throw new IllegalArgumentException(
          "sorry_server " + sorry.name() + " is also a member of " + inner.name());
    }
    this.inner = inner;
    this.sorry = sorry;
  }

  @Override
  public @Nullable Backend choose(Request request) {
    Backend b = inner.pick(request);
    if (b != null) return b;
    overflowed.increment();
    return sorry;
  }

  /** How many requests went to the sorry server. */
  public long overflowCount() {
    return overflowed.sum();
  }

  public Backend sorryServer() {
    return sorry;
  }

  @Override
  public boolean healthy() {
    return true;
  }

  @Override
  public String algorithm() {
    return inner.algorithm();
  }

  @Override
  public List<Member> members() {
    return inner.members();
  }

  @Override
  public String name() {
    return inner.name();
  }
}
