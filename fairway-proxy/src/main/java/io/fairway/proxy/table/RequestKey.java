package io.fairway.proxy.table;

import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where an HTTP service takes the key that hashing directors (hash, shard, sh, mh...) select by.
 *
 * <p>Operators pin a user or an object to one backend so its cache or session stays warm there: by
 * URL for caches, by a header or cookie for sessions. When the request lacks the header or cookie,
 * the client address is the key, so the request still lands somewhere stable.
 *
 * @param kind what the key comes from
 * @param name the header or cookie name; {@code null} for {@link Kind#URL} and {@link Kind#CLIENT}
 */
public record RequestKey(Kind kind, @Nullable String name) {

  /** What the key comes from. */
  public enum Kind {
    /** The client's address (the only choice for L4). */
    CLIENT,
    /** The request target, path and query. */
    URL,
    /** A request header's value. */
    HEADER,
    /** A cookie's value. */
    COOKIE
  }

  public static final RequestKey CLIENT = new RequestKey(Kind.CLIENT, null);
  public static final RequestKey URL = new RequestKey(Kind.URL, null);

  public RequestKey {
    Objects.requireNonNull(kind, "kind");
    boolean named = kind == Kind.HEADER || kind == Kind.COOKIE;
    if (named && (name == null || name.isBlank())) {
      throw new IllegalArgumentException("by " + kind + " needs a name");
    }
    if (!named) {
      name = null;
    }
  }

  public static RequestKey header(String name) {
    return new RequestKey(Kind.HEADER, name);
  }

  public static RequestKey cookie(String name) {
    return new RequestKey(Kind.COOKIE, name);
  }

  /**
   * Parses the configuration form: {@code by URL}, {@code by HEADER name}, {@code by COOKIE name},
   * {@code by CLIENT} (the leading {@code by} is optional, words are case-insensitive).
   *
   * @throws IllegalArgumentException with a one-line reason
   */
  public static RequestKey parse(String text) {
    String[] w = text.trim().split("\\s+");
    int i = w.length > 0 && w[0].equalsIgnoreCase("by") ? 1 : 0;
    if (i >= w.length) {
      throw new IllegalArgumentException(
          "expected URL, HEADER name, COOKIE name or CLIENT after 'by'");
    }
    String k = w[i].toUpperCase(Locale.ROOT);
    int rest = w.length - i - 1;
    switch (k) {
      case "URL", "CLIENT" -> {
        if (rest != 0) {
          throw new IllegalArgumentException("'by " + k + "' takes no name");
        }
        return k.equals("URL") ? URL : CLIENT;
      }
      case "HEADER", "COOKIE" -> {
        if (rest != 1) {
          throw new IllegalArgumentException("'by " + k + "' needs exactly one name");
        }
        return new RequestKey(Kind.valueOf(k), w[i + 1]);
      }
      default ->
          throw new IllegalArgumentException(
              "unknown key source '" + w[i] + "' (expected URL, HEADER, COOKIE or CLIENT)");
    }
  }

  /**
   * What a key is read from: a request head, as the HTTP frontend parsed it. The table reads a key
   * but never parses HTTP, so the head answers the three questions a key source asks.
   */
  public interface Source {
    /** The request target (path and query). */
    String target();

    /** The first value of the header named {@code lowerName}, or {@code null}. */
    @Nullable String header(String lowerName);

    /** The value of the cookie named {@code name} in the request's Cookie headers, or null. */
    @Nullable String cookie(String name);
  }

  /** The key of this request, or {@code null} when it has none (use the client address). */
  public @Nullable String extract(Source request) {
    return switch (kind) {
      case URL -> request.target();
      case HEADER ->
          request.header(
              Objects.requireNonNull(name, "a header key has a name").toLowerCase(Locale.ROOT));
      case COOKIE -> request.cookie(Objects.requireNonNull(name, "a cookie key has a name"));
      default -> null;
    };
  }

  @Override
  public String toString() {
    return "by " + kind + (name == null ? "" : " " + name);
  }
}
