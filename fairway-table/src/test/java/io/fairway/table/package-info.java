/**
 * Tests of {@code io.fairway.table}, not null-checked: the package is {@code @NullMarked} for its
 * main code, and tests build values with their optional parts left null (a destination without a
 * tunnel, a service without a persistence engine) and read a batch's null results on purpose, so
 * NullAway would only ask them to restate what they assert.
 */
@NullUnmarked
package io.fairway.table;

import org.jspecify.annotations.NullUnmarked;
