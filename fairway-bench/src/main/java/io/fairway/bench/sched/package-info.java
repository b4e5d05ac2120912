/**
 * Benchmarks and simulations of the IPVS-compatible schedulers (pick cost, slow start, the balance
 * and disruption of consistent hashing), whose printed tables back the claims the scheduler docs
 * make; kept out of the schedulers' own module.
 */
@NullMarked
package io.fairway.bench.sched;

import org.jspecify.annotations.NullMarked;
