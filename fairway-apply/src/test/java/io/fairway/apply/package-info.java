/**
 * Tests of {@code io.fairway.apply}, not null-checked: the package is {@code @NullMarked} for its
 * main code, and tests leave optional parts null (no sorry server, no tracked file) on purpose.
 */
@NullUnmarked
package io.fairway.apply;

import org.jspecify.annotations.NullUnmarked;
