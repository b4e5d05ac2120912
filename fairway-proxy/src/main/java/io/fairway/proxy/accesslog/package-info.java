/**
 * Access logs: one record per HTTP request (or L4 connection) after it ends, formatted as the
 * combined log format or as one JSON object a line, and written by one writer thread behind a
 * bounded queue, so that a slow disk or syslog never holds up an event loop. A full queue drops
 * records and counts them; the file is reopened on request, after logrotate moved it.
 */
@NullMarked
package io.fairway.proxy.accesslog;

import org.jspecify.annotations.NullMarked;
