package io.fairway.daemon.systemd;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells systemd ({@code Type=notify}) where {@code fairway run} is: {@code READY=1} once the table
 * is applied, {@code RELOADING=1} and {@code READY=1} around a reload, {@code STOPPING=1} when it
 * begins to stop, and a {@code STATUS=} line with each, which {@code systemctl status} shows.
 *
 * <p>Without {@code NOTIFY_SOCKET} (not started by systemd, or not {@code Type=notify}) every
 * method does nothing. A message that cannot be sent is logged once and otherwise ignored: the load
 * balancer keeps running, and systemd reports the missing readiness itself.
 */
public final class SystemdNotifier {
  private static final Logger LOG = LoggerFactory.getLogger(SystemdNotifier.class);

  private final @Nullable String socket;
  private final AtomicBoolean warned = new AtomicBoolean();

  /**
   * @param socket {@code NOTIFY_SOCKET}'s value, or null for none
   */
  public SystemdNotifier(@Nullable String socket) {
    this.socket = socket == null || socket.isEmpty() ? null : socket;
  }

  /** The notifier for this process: {@code NOTIFY_SOCKET} from the environment. */
  public static SystemdNotifier fromEnvironment() {
    return new SystemdNotifier(System.getenv("NOTIFY_SOCKET"));
  }

  /** Whether messages go anywhere. */
  public boolean enabled() {
    return socket != null;
  }

  public void status(String status) {
    send(statusLine(status));
  }

  /** The table is applied and traffic is served (start, or the end of a reload). */
  public void ready(String status) {
    send("READY=1\n" + statusLine(status));
  }

  /**
   * A reload begins. {@code MONOTONIC_USEC} (CLOCK_MONOTONIC, which {@link System#nanoTime} reads
   * on Linux) is what systemd 253's {@code Type=notify-reload} requires with it; older systemd
   * ignores it.
   */
  public void reloading(String status) {
    send("RELOADING=1\nMONOTONIC_USEC=" + System.nanoTime() / 1000 + "\n" + statusLine(status));
  }

  /** Shutdown begins (before connections are drained and the table is removed). */
  public void stopping(String status) {
    send("STOPPING=1\n" + statusLine(status));
  }

  /** One {@code STATUS=} line: systemd takes the value up to the end of the line. */
  private static String statusLine(String status) {
    return "STATUS=" + status.replaceAll("[\\r\\n]+", " ");
  }

  private void send(String message) {
    if (socket == null) {
      return;
    }
    try {
      UnixDatagram.send(socket, message);
    } catch (IOException | LinkageError e) { // LinkageError: JNA could not load (see NativeWorkDir)
      if (warned.compareAndSet(false, true)) {
        LOG.warn("cannot notify systemd at NOTIFY_SOCKET={}: {}", socket, e.getMessage());
      }
    }
  }
}
