package io.fairway.config.model;

import io.fairway.config.model.base.Location;

/**
 * The server that takes the traffic while the virtual server has lost quorum ({@code sorry_server
 * IP [PORT]}, {@code sorry_server_lvs_method}). It always gets weight 1 and is never counted in the
 * quorum.
 *
 * @param inhibit {@code sorry_server_inhibit}: weight 0 instead of removal when quorum returns
 */
public record SorryServer(
    Location location, RealServerId id, Forwarding forwarding, boolean inhibit) {}
