package io.fairway.config.model.base;

import java.util.List;
import java.util.Optional;

/**
 * A command keepalived would run ({@code notify_up}, {@code quorum_down}, {@code misc_path}, ...).
 *
 * @param command the command as written (quotes removed), for messages and {@code --dump}
 * @param argv the command split into arguments with keepalived's quoting and escape rules
 * @param user the user to run it as, if given after the command
 * @param group the group to run it as, if given after the user
 */
public record Script(
    String command, List<String> argv, Optional<String> user, Optional<String> group) {
  public Script {
    argv = List.copyOf(argv);
  }
}
