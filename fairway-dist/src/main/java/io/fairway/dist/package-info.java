/**
 * Build-time tools of the distribution (the man pages, bash completion and Debian changelog the
 * package ships, generated from the live command tree): kept in their own module and package so
 * nothing at run time depends on them.
 */
@NullMarked
package io.fairway.dist;

import org.jspecify.annotations.NullMarked;
