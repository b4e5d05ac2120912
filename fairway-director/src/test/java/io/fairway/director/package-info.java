/**
 * Tests of {@code io.fairway.director}, not null-checked: the package is {@code @NullMarked} for
 * its main code, and tests pass and read nulls on purpose (absent keys, clients, a pick that finds
 * nobody) to check how the API handles them, so NullAway would only ask them to restate what they
 * assert.
 */
@NullUnmarked
package io.fairway.director;

import org.jspecify.annotations.NullUnmarked;
