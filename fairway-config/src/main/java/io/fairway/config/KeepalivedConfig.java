package io.fairway.config;

import io.fairway.config.model.Config;
import java.nio.file.Path;
import java.util.List;

/**
 * Entry point: reads a keepalived.conf (with its includes) into a {@link Config}, and prints a
 * Config back in canonical keepalived syntax.
 *
 * <pre>{@code
 * ParseResult r = KeepalivedConfig.parse(Path.of("/etc/keepalived/keepalived.conf"));
 * r.warnings().forEach(w -> log.warn(w.format()));
 * for (VirtualServer vs : r.config().virtualServers()) { ... }
 * }</pre>
 *
 * <p>Whatever the input, the only exception thrown is {@link ConfigException}, whose message has
 * one {@code FILE:LINE: message} line per error.
 */
public final class KeepalivedConfig {
  private KeepalivedConfig() {}

  /** Parses a file with the host's config id (short host name) and environment. */
  public static ParseResult parse(Path file) {
    return parse(file, ParseOptions.defaults());
  }

  /** Parses a file; relative includes are relative to the including file. */
  public static ParseResult parse(Path file, ParseOptions options) {
    Diagnostics diags = new Diagnostics();
    Preprocessor pre = new Preprocessor(options, diags);
    String shown = file.toString();
    Path dir = file.toAbsolutePath().getParent();
    pre.registerTopDir(shown, dir);
    List<Preprocessor.Line> lines = pre.read(file, shown);
    return build(pre, lines, diags);
  }

  /**
   * Parses configuration text. {@code name} is used in messages; relative includes are resolved
   * against {@code baseDir}.
   */
  public static ParseResult parse(String name, String text, Path baseDir, ParseOptions options) {
    Diagnostics diags = new Diagnostics();
    Preprocessor pre = new Preprocessor(options, diags);
    pre.registerTopDir(name, baseDir);
    List<Preprocessor.Line> lines = pre.readText(text, name, baseDir);
    return build(pre, lines, diags);
  }

  private static ParseResult build(
      Preprocessor pre, List<Preprocessor.Line> lines, Diagnostics diags) {
    if (pre.overBudget()) {
      // The lines stop mid-file: parsing them would only add follow-on errors (unclosed blocks).
      diags.throwIfErrors();
    }
    List<Node> tree = Node.tree(lines, diags);
    Config config = new ModelBuilder(diags).build(tree);
    diags.throwIfErrors();
    return new ParseResult(config, diags.warnings());
  }

  /**
   * The configuration in canonical keepalived syntax: includes, definitions and repeaters expanded,
   * defaults and inherited values written out. Parsing the result gives an equal {@link Config}.
   */
  public static String dump(Config config) {
    return new ConfigWriter().write(config);
  }
}
