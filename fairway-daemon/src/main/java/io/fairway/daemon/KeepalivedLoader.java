package io.fairway.daemon;

import io.fairway.check.spec.VirtualServerSpec;
import io.fairway.config.ConfigException;
import io.fairway.config.Diagnostic;
import io.fairway.config.FileErrors;
import io.fairway.config.KeepalivedConfig;
import io.fairway.config.ParseResult;
import io.fairway.config.Printable;
import io.fairway.plan.Plan;
import io.fairway.plan.PlanBuilder;
import io.fairway.plan.PlanException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Loads a keepalived.conf: parsed once, planned once ({@link PlanBuilder}), the plan bound to the
 * table ({@link TableBinding}) and the model to the check engine's specs.
 */
public final class KeepalivedLoader implements Loader {
  private final boolean userspace;
  private final Function<io.fairway.config.model.Config, List<VirtualServerSpec>> specs;

  /** Adds what the file does not name itself (the servers found by real_server_dns). */
  private final java.util.function.UnaryOperator<io.fairway.config.model.Config> expand;

  /**
   * @param userspace whether the table is the userspace proxy
   * @param specs turns the model into the check engine's specs
   */
  public KeepalivedLoader(
      boolean userspace, Function<io.fairway.config.model.Config, List<VirtualServerSpec>> specs) {
    this(userspace, specs, java.util.function.UnaryOperator.identity());
  }

  /**
   * @param expand turns the file's model into the one to run (real_server_dns adds the servers it
   *     found); called once per load, before the plan
   */
  public KeepalivedLoader(
      boolean userspace,
      Function<io.fairway.config.model.Config, List<VirtualServerSpec>> specs,
      java.util.function.UnaryOperator<io.fairway.config.model.Config> expand) {
    this.userspace = userspace;
    this.specs = specs;
    this.expand = expand;
  }

  @Override
  public Loaded load(Path file) throws LoadException {
    String unreadable = unreadable(file);
    if (unreadable != null) {
      throw new LoadException(
          Printable.escape(file.toString())
              + ": cannot read the configuration file: "
              + unreadable);
    }
    ParseResult r;
    try {
      r = KeepalivedConfig.parse(file);
    } catch (ConfigException e) {
      throw new LoadException(e.getMessage(), e);
    }
    io.fairway.config.model.Config config = expand.apply(r.config());
    Plan plan;
    try {
      plan = PlanBuilder.build(config);
    } catch (PlanException e) {
      throw new LoadException(
          Objects.requireNonNull(e.getMessage(), "a PlanException joins its errors"), e);
    }
    try {
      return new Loaded(
          TableBinding.bind(plan, config, userspace),
          specs.apply(config),
          r.warnings().stream().map(Diagnostic::format).toList(),
          io.fairway.apply.LvsGlobals.from(r.config().globalDefs()),
          plan,
          io.fairway.daemon.announce.AnnounceSettings.of(config));
    } catch (TableBinding.BindingException | io.fairway.check.CheckConfigException e) {
      throw new LoadException(Objects.requireNonNull(e.getMessage(), "both are made with why"), e);
    } catch (RuntimeException e) {
      // A spec refusing a value the parser let through; name the file at least.
      throw new LoadException(file + ": " + e.getMessage(), e);
    }
  }

  /** Null if the file opens for reading, else why not ({@code ... (ENOENT)}). */
  private static @Nullable String unreadable(Path file) {
    if (Files.isDirectory(file)) {
      return "it is a directory (EISDIR)";
    }
    try {
      Files.newByteChannel(file).close();
      return null;
    } catch (java.io.IOException | SecurityException e) {
      return FileErrors.why(e);
    }
  }
}
