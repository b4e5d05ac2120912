package io.fairway.director;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A set of named backends and directors with lookup by exact name, like Varnish's {@code
 * directors.lookup()}: how configuration wires a director into another by name.
 *
 * <p>Immutable; build one with {@link #builder()}.
 */
public final class Directors {

  private final Map<String, Backend> byName;

  private Directors(Map<String, Backend> byName) {
    this.byName = Map.copyOf(byName);
  }

  /** The backend or director with exactly this name (case-sensitive), or {@code null}. */
  public @Nullable Backend lookup(String name) {
    return byName.get(name);
  }

  /** The director with exactly this name, or {@code null} if absent or not a director. */
  public @Nullable Director director(String name) {
    return byName.get(name) instanceof Director d ? d : null;
  }

  /** Everything registered. */
  public Collection<Backend> all() {
    return byName.values();
  }

  /** A new builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** Collects named backends; names must be unique. */
  public static final class Builder {
    private final Map<String, Backend> map = new LinkedHashMap<>();

    /** Registers a backend or director; throws on a duplicate name. */
    public Builder add(Backend b) {
      if (map.putIfAbsent(b.name(), b) != null) {
        throw new IllegalArgumentException("duplicate name " + b.name());
      }
      return this;
    }

    /** The immutable set. */
    public Directors build() {
      return new Directors(map);
    }
  }
}
