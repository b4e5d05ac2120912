package io.fairway.table;

/**
 * Traffic counters of a service or destination, as IPVS keeps them (IPVS_STATS_ATTR_*). Totals
 * since creation plus the kernel's rate estimates.
 */
public record Stats(
    long connections,
    long inPackets,
    long outPackets,
    long inBytes,
    long outBytes,
    long cps,
    long inPps,
    long outPps,
    long inBps,
    long outBps) {

  public static final Stats ZERO = new Stats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
