/**
 * Benchmarks of loading keepalived.conf: kept apart from the parser so the parser carries no JMH
 * dependency, and so a reload of a large installation has a measured parse cost to hold it to.
 */
@NullMarked
package io.fairway.bench.config;

import org.jspecify.annotations.NullMarked;
