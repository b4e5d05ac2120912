/**
 * Tests of {@code io.fairway.netlink}, not null-checked, like the tests of every null-marked
 * package (see docs/architecture.md): the package is {@code @NullMarked} for its main code, and a
 * test that meets a null where none belongs fails on it, which is its job.
 */
@NullUnmarked
package io.fairway.netlink;

import org.jspecify.annotations.NullUnmarked;
