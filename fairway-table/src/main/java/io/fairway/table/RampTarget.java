package io.fairway.table;

/**
 * A {@link Table} whose scheduler applies slow start itself (the userspace proxy), instead of being
 * given a weight stepped up over the ramp (the kernel's IPVS, which has no ramp).
 *
 * <p>The apply layer tells such a table when a destination's ramp starts or stops and then writes
 * its full weight: the two planes are never ramped twice. The ramp may be given before the
 * destination is added, so that its first connection is already ramped; it holds for the
 * destination with that key until it ends, is replaced, or the destination is deleted.
 */
public interface RampTarget {

  /** Starts, moves or ({@link Ramp#NONE}) ends the ramp of one destination of a service. */
  void ramp(ServiceKey service, DestKey dest, Ramp ramp) throws TableException;
}
