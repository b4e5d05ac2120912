package io.fairway.daemon.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Short-lived read sessions for the status page on a listener whose reads need the token (a
 * non-loopback one). A browser's {@code EventSource} cannot send an {@code Authorization} header,
 * so the page trades the token for a session ({@code POST /api/v1/session} with the header) that
 * the browser then carries as a cookie.
 *
 * <p>A session grants <em>reads</em> only; every mutation still needs the header, so a cookie,
 * which a browser attaches by itself, never authorises a change. Only each session id's SHA-256 is
 * kept (a heap dump shows no usable id), at most {@link #MAX} at a time (minting past that drops
 * the one closest to expiry), each valid for the lifetime from its minting.
 */
public final class AdminSessions {
  /** How long a session lasts: the page renews at half of it. */
  public static final Duration DEFAULT_LIFETIME = Duration.ofMinutes(15);

  /** {@code -Dfairway.admin.sessionSeconds}, bounded ({@link AdminProperties}). */
  static final String LIFETIME_PROPERTY = "fairway.admin.sessionSeconds";

  /** Live sessions at most. */
  static final int MAX = 64;

  private final Duration lifetime;
  private final LongSupplier nanos;
  private final SecureRandom random = new SecureRandom();

  /** Digest (hex) to expiry (nanos), in minting order, so the first is the oldest. */
  private final Map<String, Long> live = new LinkedHashMap<>();

  private long minted;

  public AdminSessions(Duration lifetime, LongSupplier nanos) {
    if (lifetime.isNegative() || lifetime.isZero()) {
      throw new IllegalArgumentException("a session lifetime must be positive: " + lifetime);
    }
    this.lifetime = lifetime;
    this.nanos = nanos;
  }

  public AdminSessions() {
    this(AdminProperties.seconds(LIFETIME_PROPERTY, DEFAULT_LIFETIME), System::nanoTime);
  }

  public Duration lifetime() {
    return lifetime;
  }

  /** The cookie's name on a listener's port: cookies are per host, not per port. */
  public static String cookieName(int port) {
    return "fairway_session_" + port;
  }

  /** A new session; its id goes to the browser and nowhere else. */
  public synchronized String mint() {
    long now = nanos.getAsLong();
    expire(now);
    while (live.size() >= MAX) {
      Iterator<String> oldest = live.keySet().iterator();
      oldest.next();
      oldest.remove();
    }
    byte[] raw = new byte[32];
    random.nextBytes(raw);
    String id = HexFormat.of().formatHex(raw);
    live.put(digest(id), now + lifetime.toNanos());
    minted++;
    return id;
  }

  /** How many sessions were minted so far (renewals included). */
  public synchronized long minted() {
    return minted;
  }

  /**
   * How long the session {@code id} is still valid, in nanoseconds; 0 when it is not (unknown,
   * expired, null).
   */
  public synchronized long remainingNanos(@Nullable String id) {
    if (id == null || id.length() != 64) {
      return 0;
    }
    long now = nanos.getAsLong();
    expire(now);
    Long until = live.get(digest(id));
    return until == null ? 0 : Math.max(0, until - now);
  }

  private void expire(long now) {
    live.values().removeIf(until -> until - now <= 0);
  }

  private static String digest(String id) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
