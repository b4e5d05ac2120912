package io.fairway.config.model;

import java.util.Optional;

/**
 * What a hashing director hashes ({@code by ...} in {@code shard { }} and {@code hash { }}).
 *
 * @param kind the source
 * @param name the header or cookie name, for HEADER and COOKIE
 */
public record KeySource(Kind kind, Optional<String> name) {

  /** Key sources. HASH, URL, KEY and BLOB are Varnish's shard {@code by=} values. */
  public enum Kind {
    /** Varnish's request hash (URL + Host) (HTTP data plane). */
    HASH,
    /** The request URL (HTTP data plane). */
    URL,
    /** An explicit key (Varnish {@code key=}); Fairway uses the client address as the key. */
    KEY,
    /** An explicit blob key (Varnish {@code key_blob=}); Fairway uses the client address bytes. */
    BLOB,
    /** A request header's value (HTTP data plane, needs a name). */
    HEADER,
    /** A cookie's value (HTTP data plane, needs a name). */
    COOKIE,
    /** The client's IP address (both data planes). */
    CLIENT_IP;

    /** True if this key needs the HTTP data plane. */
    public boolean needsHttp() {
      return this == HASH || this == URL || this == HEADER || this == COOKIE;
    }

    /** True if the keyword takes a name argument. */
    public boolean takesName() {
      return this == HEADER || this == COOKIE;
    }
  }

  public static KeySource of(Kind kind) {
    return new KeySource(kind, Optional.empty());
  }

  @Override
  public String toString() {
    return name.map(n -> kind + " " + n).orElse(kind.name());
  }
}
