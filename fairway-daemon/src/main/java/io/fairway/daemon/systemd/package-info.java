/**
 * What Fairway does to be a good systemd service, without libsystemd.
 *
 * <ul>
 *   <li><b>Readiness</b> ({@link io.fairway.daemon.systemd.SystemdNotifier}): {@code Type=notify}
 *       lets {@code systemctl start} return, and units ordered after Fairway start, only once the
 *       table is applied, not when the JVM is merely up; {@code systemctl reload} shows the reload
 *       and {@code systemctl status} the last {@code STATUS=} line. The protocol is one datagram
 *       per message on the {@code AF_UNIX} socket named by {@code NOTIFY_SOCKET}; Java 17's NIO has
 *       no Unix datagram sockets, so {@link io.fairway.daemon.systemd.UnixDatagram} calls libc's
 *       {@code socket}/{@code sendto} through JNA, which Fairway already carries for netlink,
 *       rather than pulling in libsystemd or a native transport for four messages.
 *   <li><b>Native libraries under a read-only root</b> ({@link
 *       io.fairway.daemon.systemd.NativeWorkDir}): JNA and Netty unpack their shared libraries into
 *       the temp directory, which a hardened unit ({@code PrivateTmp}, {@code
 *       ProtectSystem=strict}) or a read-only machine may not let them write; the runtime directory
 *       systemd gives the service is the place for them.
 * </ul>
 */
@NullMarked
package io.fairway.daemon.systemd;

import org.jspecify.annotations.NullMarked;
