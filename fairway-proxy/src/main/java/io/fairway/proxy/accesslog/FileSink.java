package io.fairway.proxy.accesslog;

import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** An access log file, opened for appending at the first write after each {@link #close}. */
final class FileSink implements AccessLogWriter.Sink {
  private static final Logger log = LoggerFactory.getLogger(FileSink.class);

  private final Path path;
  private @Nullable Writer out;

  FileSink(Path path) {
    this.path = path;
  }

  @Override
  public void write(List<String> lines) throws IOException {
    if (out == null) {
      // A stream, not a channel: an interrupt must not close the file under a write.
      out =
          new BufferedWriter(
              new OutputStreamWriter(
                  new FileOutputStream(path.toFile(), true), StandardCharsets.UTF_8),
              1 << 16);
    }
    for (String line : lines) {
      out.write(line);
      out.write('\n');
    }
    out.flush();
  }

  @Override
  public void close() {
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        log.debug("access log {}: close: {}", path, e.toString());
      }
      out = null;
    }
  }

  @Override
  public String name() {
    return path.toString();
  }
}
