/**
 * The {@code fairway} command line (picocli): the commands an operator types, their options and
 * one-line errors. Apart from {@link io.fairway.daemon} so that the running daemon does not depend
 * on how it is invoked.
 */
@NullMarked
package io.fairway.cli;

import org.jspecify.annotations.NullMarked;
