/**
 * Tests of the user-mode Linux harness, not null-checked, like the tests of every null-marked
 * package (see docs/architecture.md).
 */
@NullUnmarked
package io.fairway.testkit.uml;

import org.jspecify.annotations.NullUnmarked;
