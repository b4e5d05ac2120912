/**
 * Tests of {@code io.fairway.ipvs.kernel}, not null-checked: the package is {@code @NullMarked} for
 * its main code, and tests encode services without a persistence engine and read decoded values
 * whose optional parts are null on purpose, so NullAway would only ask them to restate what they
 * assert.
 */
@NullUnmarked
package io.fairway.ipvs.kernel;

import org.jspecify.annotations.NullUnmarked;
