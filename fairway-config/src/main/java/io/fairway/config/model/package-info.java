/**
 * The immutable model of a keepalived.conf as Fairway acts on it.
 *
 * <p>Why a separate, fully resolved model: the check engine, the apply layer and the data plane
 * must all agree on what the operator meant, including keepalived's silent defaults and load-time
 * adjustments (inherited checker timing, quorum capped to the weight sum, real server ports taken
 * from the service). Resolving them once, here, keeps each consumer from re-deriving them slightly
 * differently.
 *
 * <p>Every type is a record (or an enum) and compares by value, {@link
 * io.fairway.config.model.base.Location} excepted: locations are always equal, so a reload that
 * only moved lines around compares equal. Identities for diffing are {@link
 * io.fairway.config.model.VirtualServerId} and {@link io.fairway.config.model.RealServerId}.
 */
@NullMarked
package io.fairway.config.model;

import org.jspecify.annotations.NullMarked;
