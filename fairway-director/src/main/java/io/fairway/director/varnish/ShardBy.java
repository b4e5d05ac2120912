package io.fairway.director.varnish;

/** How the shard director derives its 32-bit key from a request (Varnish's {@code by}). */
public enum ShardBy {
  /**
   * Varnish's default. In client context (where Fairway picks) Varnish hashes the URL, exactly like
   * {@link #URL}; so does Fairway. A request's precomputed key (e.g. {@link VarnishHash#digestKey})
   * is used when present.
   */
  HASH,
  /** {@code HashStrands32(url)}: the request's key string. */
  URL,
  /** The request's precomputed key, e.g. {@code shard.key(string)}; else its key string hashed. */
  KEY,
  /** The first 4 bytes of the request's blob, big-endian. */
  BLOB;

  /** Parses a config or CLI value case-insensitively; throws with the accepted values listed. */
  public static ShardBy parse(String s) {
    for (ShardBy b : values()) {
      if (b.name().equalsIgnoreCase(s)) {
        return b;
      }
    }
    throw new IllegalArgumentException(
        "unknown key mode '" + s + "' (expected HASH, URL, KEY or BLOB)");
  }
}
