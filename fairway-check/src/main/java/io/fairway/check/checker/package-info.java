/**
 * The checkers, one class per keepalived checker kind (TCP, HTTP/SSL, SMTP, DNS, MISC, FILE, UDP,
 * ping): each runs one attempt without blocking and reports a result, so the engine in {@link
 * io.fairway.check} owns retries, timing and verdicts once for all of them.
 */
@NullMarked
package io.fairway.check.checker;

import org.jspecify.annotations.NullMarked;
