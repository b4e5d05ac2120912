package io.fairway.director.sched;

/**
 * One membership change of a batch, as the kernel's scheduler hooks see it ({@code add_dest},
 * {@code del_dest}, {@code upd_dest}): which server, and its weight before and after (0 before an
 * add, 0 after a delete). The weights are the ones the schedulers compare ({@link
 * SchedDest#eweight}): while a slow start runs in the service they are scaled and ramped, so a
 * replay during a ramp sees what one update per change would have seen.
 *
 * <p>A batch ({@link SchedService#beginBatch}) hands a scheduler the list it ends with plus these
 * changes in the order they were made, so a scheduler whose state depends on every hook call (rr's
 * cursor, wrr's current weight) can replay them and end exactly where one call per change would
 * have left it.
 */
public record MemberChange(Kind kind, SchedDest dest, int weightBefore, int weightAfter) {

  public enum Kind {
    ADD,
    DELETE,
    EDIT
  }

  static MemberChange add(SchedDest d) {
    return new MemberChange(Kind.ADD, d, 0, d.eweight());
  }

  /** {@code before}: its effective weight before it left (leaving ends a ramp). */
  static MemberChange delete(SchedDest d, int before) {
    return new MemberChange(Kind.DELETE, d, before, 0);
  }

  static MemberChange edit(SchedDest d, int before) {
    return new MemberChange(Kind.EDIT, d, before, d.eweight());
  }
}
