package io.fairway.daemon.balance;

import java.time.Duration;

/**
 * A real server put into its slow start for a what-if ({@code fairway pick --ramping}), and what
 * the scheduler then gives it.
 *
 * @param server the real server's name
 * @param elapsed how far into its ramp it is
 * @param duration its {@code slow_start} (shard: the director's {@code rampup})
 * @param fraction the fraction of its share it takes, as the userspace scheduler computes it
 *     ({@link io.fairway.director.SlowStart#units}; shard: Varnish's continuous rampup)
 * @param weight its configured weight
 * @param kernelWeight the weight the kernel plane's stepped ramp has in the table at this point (0
 *     for shard, which does not step)
 */
public record RampView(
    String server,
    Duration elapsed,
    Duration duration,
    double fraction,
    double weight,
    int kernelWeight) {}
