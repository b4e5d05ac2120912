package io.fairway.os.script;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A script to run: MISC_CHECK's {@code misc_path}, {@code notify_up}/{@code notify_down}, {@code
 * quorum_up}/{@code quorum_down}.
 *
 * <p>keepalived's script security: when the daemon runs as root, scripts run as an unprivileged
 * user unless the configuration names one, so a writable script path cannot become a root shell.
 * {@code user == null} means "the default script user" ({@code nobody}).
 *
 * @param argv the program and its arguments (already split; no shell)
 * @param user the user to run as, or {@code null} for the default script user
 * @param group the group to run as, or {@code null} for the user's primary group
 */
public record ScriptSpec(List<String> argv, @Nullable String user, @Nullable String group) {
  public ScriptSpec {
    argv = List.copyOf(argv);
    if (argv.isEmpty()) {
      throw new IllegalArgumentException("script needs a program");
    }
  }

  public static ScriptSpec of(String... argv) {
    return new ScriptSpec(List.of(argv), null, null);
  }

  public String program() {
    return argv.get(0);
  }

  @Override
  public String toString() {
    return String.join(" ", argv);
  }
}
