package io.fairway.daemon;

import java.time.Instant;

/**
 * A real server's last verdict and why, for {@code fairway status}.
 *
 * @param alive the verdict
 * @param reason the checker and what it saw, e.g. {@code TCP_CHECK 10.0.0.1:80: connection refused}
 * @param since when the verdict last changed
 */
public record Health(boolean alive, String reason, Instant since) {}
