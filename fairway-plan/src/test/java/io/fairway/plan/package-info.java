/**
 * Tests of {@code io.fairway.plan}, not null-checked: the package is {@code @NullMarked} for its
 * main code, and tests build director trees without a generator or clock on purpose, to get the
 * defaults, so NullAway would only ask them to restate what they assert.
 */
@NullUnmarked
package io.fairway.plan;

import org.jspecify.annotations.NullUnmarked;
