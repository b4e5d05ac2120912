package io.fairway.director.varnish;

/** How the shard director treats health while walking the ring (Varnish's {@code healthy}). */
public enum ShardHealthy {
  /** Skip {@code alt} hosts regardless of health, then return the next healthy one. */
  CHOSEN,
  /** Return the {@code alt}-th host in ring order regardless of health; no rampup or warmup. */
  IGNORE,
  /** Count only healthy hosts when skipping {@code alt}, then return the next healthy one. */
  ALL;

  /** Parses a config or CLI value case-insensitively; throws with the accepted values listed. */
  public static ShardHealthy parse(String s) {
    for (ShardHealthy h : values()) {
      if (h.name().equalsIgnoreCase(s)) {
        return h;
      }
    }
    throw new IllegalArgumentException(
        "unknown healthy mode '" + s + "' (expected CHOSEN, IGNORE or ALL)");
  }
}
