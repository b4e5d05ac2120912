/**
 * Tests of the data plane end to end, not null-checked: the package is {@code @NullMarked} for its
 * main code, and tests leave optional parts null (no request key, no bound address yet) on purpose
 * and read what a running table returns without re-proving it is there.
 */
@NullUnmarked
package io.fairway.proxy;

import org.jspecify.annotations.NullUnmarked;
