package io.fairway.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --admin} and {@code --admin-token-file}, shared by every command that talks to a running
 * fairway.
 */
final class AdminOptions {
  @Option(
      names = "--admin",
      paramLabel = "HOST:PORT",
      defaultValue = "127.0.0.1:9107",
      description = "admin listener of the running fairway (default ${DEFAULT-VALUE})")
  String admin;

  @Option(
      names = "--admin-token-file",
      paramLabel = "FILE",
      description =
          "file holding the admin token (default: the one fairway run generated in its runtime directory)")
  Path tokenFile;
}
