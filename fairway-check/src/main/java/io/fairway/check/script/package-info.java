/**
 * Running external scripts (MISC_CHECK, notify) the way keepalived does: bounded pool, own process
 * group killed on timeout, dropped privileges. Apart from the checkers because notify scripts use
 * it too.
 */
@NullMarked
package io.fairway.check.script;

import org.jspecify.annotations.NullMarked;
