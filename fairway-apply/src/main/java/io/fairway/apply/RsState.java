package io.fairway.apply;

/**
 * What the applier knows of one real server: its configuration and one immutable {@link Facts},
 * replaced whole on every change, so that a copy taken before a reload ({@link #copy}) is all of it
 * and restoring it cannot leave a ramp or a written weight behind.
 */
final class RsState {
  /**
   * One real server's state at one moment.
   *
   * @param alive the last verdict
   * @param present whether a destination for it is in the table
   * @param weight its effective weight (configured plus a weighted tracker's contribution)
   * @param maint an operator's maint: out of the table even with inhibit
   * @param rampStart when its slow start began (nanos), or -1 when it is not ramping
   * @param written the weight last written for it while serving (the ramp's current step)
   */
  record Facts(
      boolean alive, boolean present, int weight, boolean maint, long rampStart, int written) {}

  final ServerBinding config;
  private Facts facts;

  RsState(ServerBinding config) {
    this(config, new Facts(false, false, config.weight(), false, -1, 0));
  }

  private RsState(ServerBinding config, Facts facts) {
    this.config = config;
    this.facts = facts;
  }

  /** An independent copy, to go back to when a change fails. */
  RsState copy() {
    return new RsState(config, facts);
  }

  Facts facts() {
    return facts;
  }

  boolean alive() {
    return facts.alive();
  }

  void alive(boolean v) {
    Facts f = facts;
    facts = new Facts(v, f.present(), f.weight(), f.maint(), f.rampStart(), f.written());
  }

  boolean present() {
    return facts.present();
  }

  void present(boolean v) {
    Facts f = facts;
    facts = new Facts(f.alive(), v, f.weight(), f.maint(), f.rampStart(), f.written());
  }

  int weight() {
    return facts.weight();
  }

  void weight(int v) {
    Facts f = facts;
    facts = new Facts(f.alive(), f.present(), v, f.maint(), f.rampStart(), f.written());
  }

  boolean maint() {
    return facts.maint();
  }

  void maint(boolean v) {
    Facts f = facts;
    facts = new Facts(f.alive(), f.present(), f.weight(), v, f.rampStart(), f.written());
  }

  long rampStart() {
    return facts.rampStart();
  }

  boolean ramping() {
    return facts.rampStart() >= 0;
  }

  void rampStart(long v) {
    Facts f = facts;
    facts = new Facts(f.alive(), f.present(), f.weight(), f.maint(), v, f.written());
  }

  int written() {
    return facts.written();
  }

  void written(int v) {
    Facts f = facts;
    facts = new Facts(f.alive(), f.present(), f.weight(), f.maint(), f.rampStart(), v);
  }

  /**
   * Takes over a surviving server's state across a reload (a new configuration for the same address
   * and port): everything but the weight, which the caller works out.
   */
  void takeOver(Facts was) {
    facts =
        new Facts(
            was.alive(),
            was.present(),
            facts.weight(),
            was.maint(),
            was.rampStart(),
            was.written());
  }
}
