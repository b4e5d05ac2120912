/**
 * Running external scripts the way keepalived does: bounded pool, own process group killed on
 * timeout, dropped privileges, checked at load. Its own package, outside fairway-check, because
 * every script Fairway runs goes through it: MISC_CHECK and the notify and quorum scripts of the
 * checks, and VRRP's {@code vrrp_script} and notify scripts, so both keep keepalived's script
 * security with one implementation.
 */
@NullMarked
package io.fairway.os.script;

import org.jspecify.annotations.NullMarked;
