package io.fairway.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/**
 * The {@code fairway} command.
 *
 * <p>Every subcommand reports bad input as one line on stderr that names where the problem is
 * (a file and line, or an option) and exits non-zero; a stack trace is a bug.
 */
@Command(
    name = "fairway",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "A load balancer that reads keepalived.conf.",
    subcommands = {
      CommandLine.HelpCommand.class,
      CheckConfigCommand.class,
      RunCommand.class,
      DemoCommand.class,
      StatusCommand.class,
      PickCommand.class
    })
public final class Main implements Runnable {

  /** Exit code for bad input (usage, config, key file). */
  public static final int EXIT_USAGE = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /** Runs the command line with the given streams; returns the exit code. */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cl = commandLine();
    cl.setOut(out);
    cl.setErr(err);
    return cl.execute(args);
  }

  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    // A mistyped option is the user's error, not ours: one line and the usage exit code.
    cl.setParameterExceptionHandler(
        (ex, args) -> {
          ex.getCommandLine().getErr().println("fairway: " + ex.getMessage());
          return EXIT_USAGE;
        });
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          commandLine.getErr().println("fairway: " + ex.getMessage());
          return 1;
        });
    return cl;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"fairway " + (v == null ? "dev" : v)};
    }
  }
}
