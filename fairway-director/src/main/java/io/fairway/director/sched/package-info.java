/**
 * The Linux kernel's IPVS schedulers ({@code lb_algo rr wrr lc wlc sh dh mh sed nq fo ovf}),
 * reproduced exactly, plus what the userspace data plane can do that the kernel cannot.
 *
 * <p><b>Why exact.</b> An operator runs Fairway next to (or instead of) kernel IPVS nodes
 * configured from the same keepalived.conf. If a userspace node hashed clients differently from a
 * kernel node, a client whose packets land on both (ECMP, failover between directors) would be sent
 * to two different real servers: broken sessions, cold caches. So sh, dh and mh use the kernel's
 * hash functions ({@code hash_32}, SipHash-1-3 with the fixed keys), table sizes (256, 4093) and
 * table-filling order — including the detail that the kernel's server list is in reverse order of
 * addition — and {@code SchedulerKernelAgreementTest} checks thousands of connections against a
 * real kernel in user-mode Linux. The stateful schedulers follow the kernel's tie-breaking and
 * counting (an active connection weighs 256 inactive ones in lc/wlc; handshake states count as
 * active).
 *
 * <p><b>Thresholds.</b> {@code uthreshold}/{@code lthreshold} protect a real server from more
 * connections than it can take. OVERLOAD is set when a connection is bound and active+inactive
 * reaches the upper threshold; it clears when a connection ends and the count is below the lower
 * threshold (or below 3/4 of the upper one). Every scheduler skips overloaded and weight-0 servers
 * for <em>new</em> connections; existing ones continue.
 *
 * <p><b>Overflow to the sorry server.</b> The kernel drops a new connection when every server is
 * full; what the operator wants is a polite "we are busy" page. {@link
 * io.fairway.director.sched.SchedService} sends it to the {@code sorry_server} instead and goes
 * back to the pool as soon as a server has room ({@link io.fairway.director.sched.OverflowDirector}
 * does the same for the Varnish directors).
 *
 * <p><b>Slow start.</b> The kernel has none (the apply layer steps weights for it); here {@link
 * io.fairway.director.sched.SchedService#ramp} ramps a server in the scheduler itself, also for rr
 * and lc, which ignore weights ({@link io.fairway.director.SlowStart}; sh, dh and mh do not ramp,
 * it would move clients).
 *
 * <p><b>Entry points.</b> {@link io.fairway.director.sched.Schedulers#create} by name and flags;
 * {@link io.fairway.director.sched.SchedDirector} on the common {@link
 * io.fairway.director.Director} API; {@link io.fairway.director.sched.SchedService#open} and {@link
 * io.fairway.director.sched.Connection} for the data plane's connection accounting; {@link
 * io.fairway.director.sched.LoadSnapshot} for {@code fairway pick --conns}.
 */
@NullMarked
package io.fairway.director.sched;

import org.jspecify.annotations.NullMarked;
