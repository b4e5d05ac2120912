/**
 * Varnish's directors (round robin, random, fallback, hash, shard) reproduced pick for pick,
 * including Varnish's own hashing and random number generator, so moving between Varnish and
 * Fairway does not reshuffle which backend a request goes to.
 */
@NullMarked
package io.fairway.director.varnish;

import org.jspecify.annotations.NullMarked;
