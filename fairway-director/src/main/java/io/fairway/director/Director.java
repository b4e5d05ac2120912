package io.fairway.director;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Chooses one member for each new connection or request.
 *
 * <p>A director is itself a {@link Backend}, so it can be a member of another director; {@link
 * #pick(Request)} keeps resolving until it reaches a real server, the way Varnish's {@code
 * VRT_DirectorResolve} does. There is no backtracking: if an inner director finds nothing, the pick
 * is {@code null}.
 *
 * <p>Implementations read an immutable snapshot without locks and allocate nothing per pick;
 * membership, weight and health changes publish a new snapshot (see {@link AbstractDirector}).
 */
public interface Director extends Backend {

  /**
   * Chooses one member for this request without resolving it further: the result may itself be a
   * director. Returns {@code null} when no member qualifies (e.g. all are down).
   */
  @Nullable Backend choose(Request request);

  /**
   * Chooses a real server for this request, resolving through layered directors. Returns {@code
   * null} when there is none.
   */
  default @Nullable Backend pick(Request request) {
    Backend b = choose(request);
    // Cycles are refused when members are added, so this terminates; the bound is a safety net
    // against a custom Director that does not use AbstractDirector.
    for (int depth = 0; b instanceof Director d && depth < 64; depth++) {
      b = d.choose(request);
    }
    return b instanceof Director ? null : b;
  }

  /** Whether any member is up: the health a parent director sees for this one. */
  boolean healthy();

  /** The algorithm's name as configured, e.g. {@code shard} or {@code round_robin}. */
  String algorithm();

  /** The current members, in add order. */
  List<Member> members();
}
