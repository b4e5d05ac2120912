/**
 * The adapter from the configuration model ({@code io.fairway.config.model}) to the engine's specs.
 *
 * <p>Why here and not in the engine: the engine is tested without files; this adapter is where a
 * {@code keepalived.conf} mistake (a missing script, an unreadable track file, a keyword Fairway
 * does not implement) becomes a one-line error with {@code file:line}, before any check runs.
 */
@NullMarked
package io.fairway.check.config;

import org.jspecify.annotations.NullMarked;
