/**
 * Real servers from DNS ({@code real_server_dns}): the answers are resolved off the traffic's event
 * loops and turned into ordinary real servers of the virtual server's model, so that a changed
 * answer goes through the same reload-by-difference path as an edited file (checked first, drained
 * before removal) and nothing in apply knows where a server came from.
 */
@NullMarked
package io.fairway.daemon.discovery;

import org.jspecify.annotations.NullMarked;
