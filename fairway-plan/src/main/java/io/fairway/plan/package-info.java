/**
 * The plan: one typed, immutable description of every virtual service, built once per load from the
 * configuration model ({@link io.fairway.plan.PlanBuilder}) and read by everything that acts on a
 * choice: the kernel binding, the userspace data plane, {@code fairway pick}, {@code check-config
 * --dump}, {@code status} and reload.
 *
 * <p>Why a layer of its own: before it, each consumer derived what it needed from the model itself,
 * and they drifted apart. The proxy built its shard ring from {@code IP:PORT} while {@code pick}
 * used names and idents, director parameters crossed layers as strings with a default written in
 * three places, and a value the director library refuses passed {@code check-config} and failed at
 * run time. Here every decision is made once: the selection and its typed parameters ({@link
 * io.fairway.plan.Selection}), the key source, the members with name, ident, decimal weight and
 * both ports (the one IPVS gets, the one the checkers use), the sorry server, persistence. Building
 * a plan also builds each director once, so whatever the director library would refuse is refused
 * here with the file and line.
 *
 * <p>Placement: the plan depends on the configuration model (its input), the director library (it
 * validates and constructs directors, {@link io.fairway.plan.DirectorFactory}) and the table's
 * value types (it names the services and destinations it describes). Nothing depends back on
 * anything that runs: data planes depend on the plan and receive it through {@link
 * io.fairway.plan.PlanTarget}.
 */
@NullMarked
package io.fairway.plan;

import org.jspecify.annotations.NullMarked;
