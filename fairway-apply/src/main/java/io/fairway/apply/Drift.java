package io.fairway.apply;

import io.fairway.table.DestKey;
import io.fairway.table.ServiceKey;
import org.jspecify.annotations.Nullable;

/**
 * One difference between the table and what the applier believes, found (and converged) by drift
 * repair.
 *
 * @param kind what differed
 * @param service the service it was found in
 * @param dest the destination, or {@code null} for a service-level difference
 * @param detail what the table had and what it should have had, for the log
 */
public record Drift(Kind kind, ServiceKey service, @Nullable DestKey dest, String detail) {

  /** What differed. */
  public enum Kind {
    /** A service Fairway installed is gone from the table. */
    MISSING_SERVICE,
    /** A service's scheduler, flags or persistence differ. */
    CHANGED_SERVICE,
    /** A destination that should be there is not. */
    MISSING_DEST,
    /** A destination is there that should not be. */
    EXTRA_DEST,
    /** A destination's weight, forwarding method or thresholds differ. */
    CHANGED_DEST
  }

  @Override
  public String toString() {
    String what = kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    return service
        + (dest == null ? "" : " -> " + dest)
        + ": "
        + what
        + (detail.isEmpty() ? "" : " (" + detail + ")");
  }
}
