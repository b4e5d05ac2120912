package io.fairway.cli;

import java.io.BufferedWriter;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code fairway} command.
 *
 * <p>Every subcommand reports bad input as one line on stderr that names where the problem is (a
 * file and line, or an option) and exits non-zero; a stack trace is a bug.
 */
@Command(
    name = "fairway",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "A load balancer that reads keepalived.conf.",
    subcommands = {
      CommandLine.HelpCommand.class,
      RunCommand.class,
      StatusCommand.class,
      ServerCommand.class,
      AnnounceCommand.class,
      EventsCommand.class,
      ReloadCommand.class,
      CheckConfigCommand.class,
      PickCommand.class,
      DemoCommand.class,
      CompletionCommand.class,
      TrainingRunCommand.class
    })
public final class Main implements Runnable {

  /** Exit code for bad input (usage, config, key file). */
  public static final int EXIT_USAGE = 2;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /**
   * What subcommands read as standard input ({@code pick --keys -}, the demo's typed commands).
   * Only {@link #main} hands them the process's {@code System.in}: a command run in-process (tests,
   * an embedding program) must not read, or hold the lock of, a stdin it does not own — Maven's
   * test fork, for one, talks to its parent over it.
   */
  private final InputStream in;

  private Main(InputStream in) {
    this.in = in;
  }

  /** Standard input as the caller of {@link #execute} gave it. */
  InputStream in() {
    return in;
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    // Before any command touches Netty: its allocators read the level as they create buffers.
    LeakDetection.configure();
    // Before JNA or Netty load a native library: where they may unpack it.
    io.fairway.daemon.systemd.NativeWorkDir.configure();
    // The platform's default charset: what the command's output has always been written in.
    Charset platform = Charset.defaultCharset();
    System.exit(
        execute(
            args,
            System.in,
            new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, platform)), true),
            new PrintWriter(
                new BufferedWriter(new OutputStreamWriter(System.err, platform)), true)));
  }

  /**
   * Runs the command line with the given streams and an empty standard input; returns the exit
   * code.
   */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    return execute(args, InputStream.nullInputStream(), out, err);
  }

  /** Runs the command line with the given streams; returns the exit code. */
  public static int execute(String[] args, InputStream in, PrintWriter out, PrintWriter err) {
    CommandLine cl = commandLine(in);
    cl.setOut(out);
    cl.setErr(err);
    return cl.execute(args);
  }

  /**
   * The whole command tree with an empty standard input, for what is generated from it rather than
   * run: man pages and the completion script (build time and {@code fairway completion}).
   */
  public static CommandLine commandTree() {
    return commandLine(InputStream.nullInputStream());
  }

  static CommandLine commandLine(InputStream in) {
    CommandLine cl = new CommandLine(new Main(in));
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
