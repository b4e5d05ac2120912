package io.fairway.director;

import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * What an algorithm may select by, for one new connection or request. Each algorithm reads only
 * what it needs: round_robin and fallback nothing, hash and shard a key, the kernel schedulers
 * addresses and ports.
 *
 * <p>Immutable. A caller that picks for many requests with the same inputs (a benchmark, a what-if
 * tool) can build one {@code Request} and reuse it; picking never allocates.
 *
 * <p>Keys: {@link #key()} is a precomputed unsigned 32-bit key (what Varnish's shard {@code by=KEY}
 * takes, e.g. from {@code shard.key(string)}); when it is absent, hash and shard hash {@link
 * #keyString()} themselves. Precomputing the key moves the SHA-256 off the pick path.
 */
public final class Request {

  /** A request that carries nothing: enough for round_robin, fallback and random. */
  public static final Request EMPTY = new Request(-1, null, null, null, null, 0, false, null);

  private final long key;
  private final @Nullable String keyString;
  private final byte @Nullable [] blob;
  private final @Nullable InetSocketAddress client;
  private final @Nullable InetSocketAddress destination;
  private final int alt;
  private final boolean altGiven;
  private final @Nullable Params params;

  private Request(
      long key,
      @Nullable String keyString,
      byte @Nullable [] blob,
      @Nullable InetSocketAddress client,
      @Nullable InetSocketAddress destination,
      int alt,
      boolean altGiven,
      @Nullable Params params) {
    this.key = key;
    this.keyString = keyString;
    this.blob = blob;
    this.client = client;
    this.destination = destination;
    this.alt = alt;
    this.altGiven = altGiven;
    this.params = params;
  }

  /**
   * Algorithm-specific per-request parameters, e.g. a shard parameter set (Varnish's {@code
   * shard_param}). Algorithms ignore parameter types that are not theirs.
   */
  public interface Params {}

  /** A request keyed by a precomputed unsigned 32-bit key ({@code 0 .. 2^32-1}). */
  public static Request ofKey(long key) {
    return EMPTY.withKey(key);
  }

  /** A request keyed by a string (a URL, a session id...), hashed by the director. */
  public static Request ofString(String keyString) {
    return EMPTY.withKeyString(keyString);
  }

  /** A request from this client to this destination, for the address-hashing schedulers. */
  public static Request ofFlow(
      @Nullable InetSocketAddress client, @Nullable InetSocketAddress destination) {
    return new Request(-1, null, null, client, destination, 0, false, null);
  }

  /** This request with a precomputed unsigned 32-bit key. */
  public Request withKey(long k) {
    if (k < 0 || k > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("key must be in 0..4294967295, got " + k);
    }
    return new Request(k, keyString, blob, client, destination, alt, altGiven, params);
  }

  /** This request with a key string. */
  public Request withKeyString(String s) {
    return new Request(key, s, blob, client, destination, alt, altGiven, params);
  }

  /** This request with a key blob (shard {@code by=BLOB}); the array is not copied. */
  public Request withBlob(byte[] b) {
    return new Request(key, keyString, b, client, destination, alt, altGiven, params);
  }

  /** This request with the client address and port. */
  public Request withClient(InetSocketAddress c) {
    return new Request(key, keyString, blob, c, destination, alt, altGiven, params);
  }

  /** This request with the destination (virtual server) address and port. */
  public Request withDestination(InetSocketAddress d) {
    return new Request(key, keyString, blob, client, d, alt, altGiven, params);
  }

  /**
   * This request asking for the {@code alt}-th alternative instead of the first choice (shard: e.g.
   * the retry number, like Varnish's {@code alt=req.restarts}).
   */
  public Request withAlt(int a) {
    if (a < 0) {
      throw new IllegalArgumentException("invalid alt argument " + a);
    }
    return new Request(key, keyString, blob, client, destination, a, true, params);
  }

  /** This request with algorithm-specific parameters overriding the director's defaults. */
  public Request withParams(Params p) {
    return new Request(key, keyString, blob, client, destination, alt, altGiven, p);
  }

  /** Whether {@link #key()} is set. */
  public boolean hasKey() {
    return key >= 0;
  }

  /** The precomputed unsigned 32-bit key, or {@code -1} when absent. */
  public long key() {
    return key;
  }

  /** The key string, or {@code null}. */
  public @Nullable String keyString() {
    return keyString;
  }

  /** The key blob (not a copy; do not modify), or {@code null}. */
  public byte @Nullable [] blob() {
    return blob;
  }

  /** The client address, or {@code null}. */
  public @Nullable InetSocketAddress client() {
    return client;
  }

  /** The destination address, or {@code null}. */
  public @Nullable InetSocketAddress destination() {
    return destination;
  }

  /**
   * Whether this request asked for an alternative ({@link #withAlt}), even 0: a per-request {@code
   * alt} overrides the director's default parameters (an associated shard_param's alt) as a VCL
   * call's {@code alt=} argument does.
   */
  public boolean hasAlt() {
    return altGiven;
  }

  /** The alternative asked for, 0 = first choice. */
  public int alt() {
    return alt;
  }

  /** Algorithm-specific parameters, or {@code null} for the director's defaults. */
  public @Nullable Params params() {
    return params;
  }

  @Override
  public String toString() {
    return "Request[key=" + key + ", keyString=" + keyString + ", alt=" + alt + "]";
  }
}
