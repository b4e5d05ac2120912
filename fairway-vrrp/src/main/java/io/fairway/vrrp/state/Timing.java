package io.fairway.vrrp.state;

/** The RFC timers in nanoseconds, with keepalived's integer arithmetic. */
public final class Timing {
  private Timing() {}

  /** One centisecond. */
  public static final long CENTI = 10_000_000L;

  /**
   * Skew time: RFC 3768 (v2) (256 - priority) / 256 seconds; RFC 5798 (v3) ((256 - priority) *
   * Master_Adver_Interval) / 256.
   */
  public static long skew(int version, int priority, int masterAdvertCentis) {
    long p = 256L - priority;
    return version == 2 ? p * 1_000_000_000L / 256 : p * masterAdvertCentis * CENTI / 256;
  }

  /** Master down interval: 3 x Master_Adver_Interval + skew time. */
  public static long masterDown(int version, int priority, int masterAdvertCentis) {
    return 3L * masterAdvertCentis * CENTI + skew(version, priority, masterAdvertCentis);
  }
}
