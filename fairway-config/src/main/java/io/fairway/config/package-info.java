/**
 * Reads keepalived.conf into Fairway's model, and writes the model back.
 *
 * <p>Operators already have a keepalived.conf they trust; Fairway must read that file exactly as
 * keepalived does (comments, includes, {@code @id} lines, {@code $definitions}, {@code ~SEQ}
 * repeaters, keepalived's defaults and its silent load-time adjustments), or the same file would
 * mean two different load balancers. Where keepalived silently drops a line or a service, Fairway
 * says so with the file and line, and refuses the file when the result would not be what the
 * operator wrote.
 *
 * <p>Parsing is three passes, each small enough to reason about: {@code Preprocessor} turns files
 * into logical lines (the lexical rules of keepalived's lib/parser.c), {@code Node} builds the
 * block tree (so brace errors are reported once, precisely), and {@code ModelBuilder} gives
 * keywords their meaning and produces the immutable {@link io.fairway.config.model.Config}. Errors
 * are collected, not thrown one at a time, so an operator fixes a file in one round; {@link
 * io.fairway.config.ConfigException} is the only exception that leaves the package.
 */
package io.fairway.config;
