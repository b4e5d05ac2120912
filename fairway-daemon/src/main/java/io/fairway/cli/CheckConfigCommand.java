package io.fairway.cli;

import io.fairway.config.ConfigException;
import io.fairway.config.Diagnostic;
import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseOptions;
import io.fairway.config.ParseResult;
import io.fairway.plan.Plan;
import io.fairway.plan.PlanBuilder;
import io.fairway.plan.PlanException;
import io.fairway.plan.PlanFormat;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fairway check-config -f FILE [--dump] [--strict] [--config-id ID]}: loads a
 * keepalived.conf the way {@code fairway run} would and reports every problem as {@code FILE:LINE:
 * message}.
 *
 * <p>Operators run this before a reload; it must answer "will it load, and what will it do" without
 * touching the system. Exit 0: loads (warnings on stderr); 1: errors (or warnings with {@code
 * --strict}); 2: usage.
 */
@Command(
    name = "check-config",
    mixinStandardHelpOptions = true,
    description = {
      "Check a keepalived.conf without applying it.",
      "Exit 0 if it loads (warnings on stderr), 1 on errors (or warnings with --strict), 2 on usage."
    })
public final class CheckConfigCommand implements Callable<Integer> {

  /** Exit code when the configuration does not load. */
  public static final int EXIT_INVALID = 1;

  @Spec CommandSpec spec;

  @Option(
      names = {"-f", "--use-file"},
      required = true,
      paramLabel = "FILE",
      description = "The keepalived.conf to check.")
  Path file;

  @Option(
      names = "--dump",
      description =
          "Print the effective configuration (includes, macros and repeaters expanded, "
              + "defaults explicit) in keepalived syntax on stdout.")
  boolean dump;

  @Option(names = "--strict", description = "Treat warnings as errors.")
  boolean strict;

  @Option(
      names = {"-i", "--config-id"},
      paramLabel = "ID",
      description = "The config id for @ID lines (default: the short host name).")
  String configId;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    ParseOptions options = ParseOptions.defaults();
    if (configId != null) {
      options = options.withConfigId(configId);
    }
    ParseResult result;
    try {
      result = KeepalivedConfig.parse(file, options);
    } catch (ConfigException e) {
      e.warnings().forEach(w -> err.println(w.format()));
      e.errors().forEach(d -> err.println(d.format()));
      err.flush();
      return EXIT_INVALID;
    }
    for (Diagnostic w : result.warnings()) {
      // With --strict a warning is an error, and is shown as one.
      err.println(
          strict
              ? new Diagnostic(w.file(), w.line(), Diagnostic.Severity.ERROR, w.message(), w.text())
                  .format()
              : w.format());
    }
    err.flush();
    Plan plan;
    try {
      // What run would refuse after parsing (a director parameter or member the director
      // library rejects) is refused here too, with its file and line.
      plan = PlanBuilder.build(result.config());
    } catch (PlanException e) {
      e.errors().forEach(err::println);
      err.flush();
      return EXIT_INVALID;
    }
    if (dump) {
      out.print(KeepalivedConfig.dump(result.config()));
      out.print(PlanFormat.comment(plan));
      out.flush();
    }
    if (strict && !result.warnings().isEmpty()) {
      err.println(file + ": " + result.warnings().size() + " warning(s) and --strict");
      err.flush();
      return EXIT_INVALID;
    }
    return 0;
  }
}
