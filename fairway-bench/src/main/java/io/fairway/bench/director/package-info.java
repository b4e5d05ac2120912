/**
 * Benchmarks of the director library (pick, key hashing, reconfiguration), in JMH and in thread CPU
 * time: separate from fairway-director so the library ships without benchmark code or JMH.
 */
@NullMarked
package io.fairway.bench.director;

import org.jspecify.annotations.NullMarked;
