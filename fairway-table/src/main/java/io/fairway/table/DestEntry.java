package io.fairway.table;

/**
 * A destination as read back from the table, with its connection counters.
 *
 * @param dest the destination's configuration
 * @param activeConnections connections the forwarder counts as active (ESTABLISHED for TCP)
 * @param inactiveConnections connections closed or half-open, kept until they expire
 * @param persistentConnections persistence templates pointing here
 * @param stats traffic counters
 */
public record DestEntry(
    Dest dest,
    int activeConnections,
    int inactiveConnections,
    int persistentConnections,
    Stats stats) {}
