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
 *
 * <p>Each block is a keyword table ({@code KeywordTable}, keepalived's {@code install_keyword}
 * shape) because the table is at once what a keyword does and the list unknown-keyword suggestions
 * draw from, so the two cannot drift apart; keywords several blocks share (a checker's endpoint,
 * timing) are one table that each block includes, so they cannot come to mean different things. A
 * parser is only wiring: it runs a block's lines through its table and checks what needs the rest
 * of the file (names defined elsewhere, values inherited from an outer block). That keeps each
 * block small enough to read whole, and a new keyword one entry in one table. Options written as
 * words on one line rather than as keyword lines (a TUN lb_kind's, a virtual address's) are read by
 * a small reader that holds what has been read so far, for the same reason. Keywords keepalived has
 * and Fairway refuses are table entries too ({@code KeywordTable.refuse}), so a refusal names the
 * keyword and why instead of "unknown keyword".
 */
@NullMarked
package io.fairway.config;

import org.jspecify.annotations.NullMarked;
