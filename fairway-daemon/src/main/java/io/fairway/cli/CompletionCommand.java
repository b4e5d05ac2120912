package io.fairway.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fairway completion bash}: prints the bash completion script for the whole command tree.
 *
 * <p>Generated from the live command tree (picocli's {@link AutoComplete}), so a subcommand or
 * option added anywhere completes without touching this class; the Debian package ships the same
 * script, generated at build time, in {@code /usr/share/bash-completion/completions/fairway}.
 */
@Command(
    name = "completion",
    mixinStandardHelpOptions = true,
    description = {
      "Print a shell completion script.",
      "Load it with: source <(fairway completion bash)"
    })
public final class CompletionCommand implements Callable<Integer> {

  /** The shells picocli generates for (its bash script also works in zsh with bashcompinit). */
  enum Shell {
    bash
  }

  @Spec CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "SHELL",
      description = "the shell: ${COMPLETION-CANDIDATES}")
  Shell shell;

  @Override
  public Integer call() {
    spec.commandLine().getOut().print(script());
    spec.commandLine().getOut().flush();
    return 0;
  }

  /** The bash completion script for {@code fairway} and every subcommand. */
  public static String script() {
    return AutoComplete.bash("fairway", Main.commandTree());
  }
}
