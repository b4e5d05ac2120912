/**
 * What the check engine needs to know about virtual servers, real servers and their checkers, with
 * every default already resolved.
 *
 * <p>Why separate records rather than the configuration model: the engine must be testable without
 * parsing a file, and the model may carry things (forwarding method, thresholds) that checking must
 * not depend on. An adapter turns a parsed {@code keepalived.conf} into these records. Plain values
 * that mean the same on both sides, such as {@link io.fairway.config.model.StatusRange}, are the
 * model's own rather than a copy.
 */
@NullMarked
package io.fairway.check.spec;

import org.jspecify.annotations.NullMarked;
