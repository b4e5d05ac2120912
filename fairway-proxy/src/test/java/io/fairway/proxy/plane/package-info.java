/**
 * Tests of the plane that need its package-private parts (the template purge), not null-checked as
 * the main package is.
 */
@NullUnmarked
package io.fairway.proxy.plane;

import org.jspecify.annotations.NullUnmarked;
