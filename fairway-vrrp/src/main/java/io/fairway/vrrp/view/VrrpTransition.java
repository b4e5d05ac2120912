package io.fairway.vrrp.view;

import io.fairway.vrrp.state.State;
import java.net.InetAddress;
import java.time.Instant;
import java.util.Optional;

/**
 * One state change of an instance or of a sync group.
 *
 * @param at when
 * @param group true for a vrrp_sync_group, false for a vrrp_instance
 * @param name the instance's or group's name
 * @param from the state left
 * @param to the state entered
 * @param priority the instance's effective priority (0 for a group, as keepalived's notify)
 * @param master the master it follows after the change (itself when it became master)
 */
public record VrrpTransition(
    Instant at,
    boolean group,
    String name,
    State from,
    State to,
    int priority,
    Optional<InetAddress> master) {}
