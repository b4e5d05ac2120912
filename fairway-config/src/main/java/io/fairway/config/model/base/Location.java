package io.fairway.config.model.base;

/**
 * Where a configuration item was written: the file (as the operator named it, or the included file)
 * and its 1-based line.
 *
 * <p>Locations are for messages only. Two locations are always {@linkplain #equals equal}, so a
 * model element's identity and equality never depend on where it stands in the file: moving a
 * block, adding a comment above it or printing the model with {@code --dump} is not a configuration
 * change, and a reload must not treat it as one.
 */
public record Location(String file, int line) {

  /** A location for elements that were not read from a file (defaults, generated elements). */
  public static final Location NONE = new Location("<none>", 0);

  @Override
  public boolean equals(Object o) {
    return o instanceof Location;
  }

  @Override
  public int hashCode() {
    return 0;
  }

  @Override
  public String toString() {
    return file + ":" + line;
  }
}
