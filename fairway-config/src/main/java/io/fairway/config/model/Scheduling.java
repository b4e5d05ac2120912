package io.fairway.config.model;

import java.util.Objects;
import java.util.Set;

/**
 * How a virtual server picks a real server: {@code lb_algo} and its parameters ({@code
 * hash_balance_factor}, the scheduler flags such as {@code flag-1} or {@code sh-port}) and, for a
 * Varnish director (a Fairway extension), its parameters and layering ({@code director}, {@code
 * members}, {@code alt_header}). {@link #DEFAULT} is keepalived's wlc without flags.
 *
 * @param scheduler {@code lb_algo} (default wlc)
 * @param director the Varnish director's parameters, {@link DirectorSpec.None} otherwise
 * @param hashBalanceFactor bounded-load factor in percent for mh/shard ({@code
 *     hash_balance_factor}); 0 = off, otherwise above 100
 * @param flags scheduler flags ({@code flag-N}, {@code sh-port}, {@code ops}, ...)
 * @param layout the director's layering: named directors, the members of the virtual_server's
 *     director, the {@code alt_header}; {@link DirectorLayout#NONE} without
 */
public record Scheduling(
    Scheduler scheduler,
    DirectorSpec director,
    int hashBalanceFactor,
    Set<SchedulerFlag> flags,
    DirectorLayout layout) {
  /** wlc, no director, no flags, no layering. */
  public static final Scheduling DEFAULT =
      new Scheduling(Scheduler.WLC, new DirectorSpec.None(), 0, Set.of(), DirectorLayout.NONE);

  public Scheduling {
    Objects.requireNonNull(scheduler, "scheduler");
    Objects.requireNonNull(director, "director");
    flags = Set.copyOf(flags);
    Objects.requireNonNull(layout, "layout");
  }

  /** The OR of the IP_VS_SVC_F_* bits of {@link #flags()} (persistence not included). */
  public int flagBits() {
    int bits = 0;
    for (SchedulerFlag f : flags) {
      bits |= f.bits();
    }
    return bits;
  }
}
