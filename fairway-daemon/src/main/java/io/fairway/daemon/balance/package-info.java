/**
 * Builds a balancer for a configured {@code virtual_server}: the bridge between the config model
 * and the director library, used by {@code fairway pick} and the userspace data plane.
 *
 * <p>Why a separate step: the config model says what the operator wrote ({@code lb_algo shard},
 * {@code ident}, decimal weights); the director library knows nothing of files. Problems only
 * visible when the two meet (two real servers with the same shard ident, a kernel scheduler flag
 * that does not fit) are reported here, as one line naming the file and line, before any traffic is
 * balanced with a half-built table.
 */
@NullMarked
package io.fairway.daemon.balance;

import org.jspecify.annotations.NullMarked;
