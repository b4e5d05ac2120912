package io.fairway.proxy.table;

/**
 * One real server's learned limit, for metrics and the status page.
 *
 * @param learned the limit in force now, 0 when none is learned or {@code max_conns} is set
 * @param refusals connections or requests the server refused (which teach the limit)
 * @param hits picks that found the server at its learned limit
 */
public record LimitStats(int learned, long refusals, long hits) {
  static LimitStats of(ProxyBackend rs) {
    return new LimitStats(rs.learnedLimit(), rs.refusals(), rs.limitHits());
  }
}
