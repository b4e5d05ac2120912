package io.fairway.check.spec;

import java.nio.file.Path;
import java.util.Objects;

/**
 * {@code FILE_CHECK} / {@code track_file}: the operator's maintenance switch. The file holds an
 * integer {@code v}; with {@code weight == 0}, {@code v != 0} takes the server down; otherwise
 * {@code v × weight} (negated with {@code reverse}) is added to the server's weight, and a product
 * at or below {@code Integer.MIN_VALUE} takes it down. Writing {@code -1} to a file with weight
 * 254, say, drains the server to weight 0 without editing the configuration or touching the
 * application.
 *
 * <p>The file is read at load, so a drained server never starts in the pool, then re-read every
 * {@code min(delay_loop, 1 s)}; it has no retries and no alpha (keepalived reacts to the file at
 * once).
 *
 * @param name the track_file name, for logs
 * @param file the file's path
 * @param weight the multiplier
 * @param reverse negate the product
 */
public record FileCheckSpec(String name, Path file, int weight, boolean reverse, CheckTiming timing)
    implements CheckSpec {
  public FileCheckSpec {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(timing, "timing");
    name = name == null ? file.toString() : name;
  }

  @Override
  public String describe() {
    return "FILE_CHECK " + name;
  }
}
