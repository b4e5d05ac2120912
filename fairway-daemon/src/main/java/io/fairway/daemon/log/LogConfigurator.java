package io.fairway.daemon.log;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Fairway's logging setup, in code: one line per event on stderr ({@link LineLayout}), the level
 * from {@code FAIRWAY_LOG_LEVEL} (default info), Netty at error only (it warns about things an
 * operator cannot act on, such as no MAC address in a container).
 *
 * <p>Why not a {@code logback.xml}: reading one loads an XML parser and logback's configuration
 * interpreter, some 400 classes, and on this project's machine that was a fifth of the time from
 * exec to the table applied. Logback finds this class through {@code ServiceLoader}. An operator's
 * own {@code -Dlogback.configurationFile=FILE} (or a {@code logback-test.xml} on the classpath)
 * still wins: then this configurator steps aside.
 */
public final class LogConfigurator extends ContextAwareBase implements Configurator {
  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null
        || LogConfigurator.class.getClassLoader().getResource("logback-test.xml") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    LineLayout layout = new LineLayout(JournalFormat.journal());
    layout.setContext(context);
    layout.start();
    LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
    encoder.setContext(context);
    encoder.setLayout(layout);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("STDERR");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.toLevel(System.getenv("FAIRWAY_LOG_LEVEL"), Level.INFO));
    root.addAppender(stderr);
    context.getLogger("io.netty").setLevel(Level.ERROR);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
