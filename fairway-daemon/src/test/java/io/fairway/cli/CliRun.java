package io.fairway.cli;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/** One {@code fairway} command line run in-process, with what it printed and its exit code. */
record CliRun(int code, String out, String err) {

  static CliRun run(String... args) {
    return run(InputStream.nullInputStream(), args);
  }

  /** With {@code in} as the command's standard input. */
  static CliRun run(InputStream in, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, in, new PrintWriter(out, true), new PrintWriter(err, true));
    return new CliRun(code, out.toString(), err.toString());
  }

  List<String> lines() {
    return out.lines().toList();
  }
}
