package io.fairway.check;

/**
 * A real server's current verdict, as included in a {@link VerdictSnapshot}.
 *
 * @param name the real server's stable name
 * @param alive whether all of its checkers are up
 * @param weight its effective weight, clamped to {@code [0, Integer.MAX_VALUE]}
 */
public record RealServerVerdict(String name, boolean alive, int weight) {}
