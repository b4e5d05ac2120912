/**
 * The small pieces every part of the configuration model is made of: where an element was written
 * ({@link io.fairway.config.model.base.Location}), a command keepalived would run ({@link
 * io.fairway.config.model.base.Script}) and addresses spelled as keepalived writes them ({@link
 * io.fairway.config.model.base.Addresses}).
 *
 * <p>Why a package of its own: both the virtual server model ({@code io.fairway.config.model}) and
 * the VRRP model ({@code io.fairway.config.model.vrrp}) use them, while only the former aggregates
 * the latter (in {@code Config}). Kept in either half they would make the two packages depend on
 * each other; here, below both, each dependency runs one way.
 */
@NullMarked
package io.fairway.config.model.base;

import org.jspecify.annotations.NullMarked;
