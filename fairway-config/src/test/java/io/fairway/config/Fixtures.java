package io.fairway.config;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;

/** Test helpers: fixture paths and parsing text with a fixed config id. */
final class Fixtures {
  private Fixtures() {}

  static final ParseOptions OPTIONS =
      new ParseOptions("testhost", java.util.Map.of("FAIRWAY_TEST_ENV", "from-env"));

  static final List<String> ALL =
      List.of(
          "full.conf",
          "ipv6.conf",
          "fwmark.conf",
          "macros.conf",
          "include/main.conf",
          "director.conf");

  static Path path(String name) {
    URL url = Fixtures.class.getResource("/fixtures/" + name);
    if (url == null) {
      throw new IllegalArgumentException("no fixture " + name);
    }
    try {
      return Path.of(url.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static ParseResult load(String name) {
    return KeepalivedConfig.parse(path(name), OPTIONS);
  }

  static ParseResult parse(String text) {
    return KeepalivedConfig.parse("test.conf", text, Path.of("."), OPTIONS);
  }
}
