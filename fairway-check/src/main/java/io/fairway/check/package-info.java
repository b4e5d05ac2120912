/**
 * Health checking: decides whether each real server is usable, with keepalived's exact semantics,
 * and publishes the verdicts through {@link io.fairway.check.VerdictListener}.
 *
 * <p>Why the framework knows nothing about IPVS or the proxy: the same verdicts drive the kernel
 * table, the userspace data plane, logs and the admin API. Keeping the decision (here) apart from
 * the action (the apply layer) means the rules — retry counting, alpha, quorum hysteresis — are
 * tested once, deterministically, and a failing kernel call cannot corrupt the health state: a
 * refused transition is simply retried.
 *
 * <p>The rules an operator relies on, all from keepalived:
 *
 * <ul>
 *   <li>one success brings a checker up; {@code retry + 1} consecutive failures bring it down; the
 *       first failure after start is final;
 *   <li>a real server is alive only when every checker is up; its weight is the configured weight
 *       plus the dynamic contributions of MISC_CHECK ({@code misc_dynamic}) and FILE_CHECK, clamped
 *       to {@code 0..2^31-1};
 *   <li>alpha servers start dead, others start alive;
 *   <li>quorum is gained at {@code sum >= quorum + hysteresis} and lost at {@code sum == 0 || sum <
 *       quorum - hysteresis}.
 * </ul>
 */
@NullMarked
package io.fairway.check;

import org.jspecify.annotations.NullMarked;
