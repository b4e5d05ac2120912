package io.fairway.director.varnish;

import io.fairway.director.Backend;
import io.fairway.director.PlainDirector;
import io.fairway.director.Request;
import io.fairway.director.Snapshot;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Varnish's {@code hash}: {@code r = HashStrands32(key string) * 2^-32}, then the weighted walk
 * over up members ({@code vdir_pick_be}). The same string always goes to the same member while
 * membership and health stay the same.
 *
 * <p>What the operator should know: this is not consistent hashing. Any health or membership change
 * shifts the walk, so keys of members that stayed up move too (Varnish #1595, #3276). Use {@code
 * shard} when keys should stay put; {@code fairway pick --stats --down} shows how many move.
 *
 * <p>A request's precomputed {@link Request#key()} is used as the 32-bit hash when present;
 * otherwise {@link Request#keyString()} is hashed ({@code null} hashes like {@code ""}).
 *
 * <p>Deviation: Varnish's hash director has no health method, so as a member of another director it
 * always counts as healthy. Here it is healthy when any member is up, like every other director, so
 * a parent can fall back when all its members are down.
 */
public final class HashDirector extends PlainDirector {

  /** A hash director with the system clock. */
  public HashDirector(String name) {
    this(name, null);
  }

  /** A hash director with the given clock. */
  public HashDirector(String name, @Nullable LongSupplier clock) {
    super(name, "hash", clock);
    start();
  }

  @Override
  public @Nullable Backend choose(Request request) {
    long h = request.hasKey() ? request.key() : VarnishHash.hash32(request.keyString());
    return chooseByHash(h);
  }

  /** The member for an already computed 32-bit hash ({@code 0 .. 2^32-1}). */
  public @Nullable Backend chooseByHash(long hash32) {
    Snapshot s = state().snapshot();
    int i = s.pickWeighted(hash32 * 0x1p-32);
    return i < 0 ? null : s.backend(i);
  }
}
