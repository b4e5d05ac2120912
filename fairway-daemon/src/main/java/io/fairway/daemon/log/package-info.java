/**
 * Log lines fit for where they go. On a terminal or in a file a line carries its own timestamp;
 * under systemd, stderr is a stream into the journal ({@code JOURNAL_STREAM}), which stamps each
 * line itself and reads a leading {@code <N>} as the line's syslog priority: with it, {@code
 * journalctl -p warning -u fairway} shows warnings and errors only, and the time is not printed
 * twice. keepalived's {@code -S facility} sets the facility part of {@code N}.
 *
 * <p>The setup is code ({@link io.fairway.daemon.log.LogConfigurator}), not a logback.xml: the XML
 * route costs a noticeable part of the start-up.
 */
@NullMarked
package io.fairway.daemon.log;

import org.jspecify.annotations.NullMarked;
