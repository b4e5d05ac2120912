/**
 * Tests of the table model, not null-checked: the package is {@code @NullMarked} for its main code,
 * and tests build specs without a selection or sorry server and read picks they know are there.
 */
@NullUnmarked
package io.fairway.proxy.table;

import org.jspecify.annotations.NullUnmarked;
