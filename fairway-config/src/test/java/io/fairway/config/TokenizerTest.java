package io.fairway.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A script's argv takes keepalived's backslash escapes, outside single quotes. */
class TokenizerTest {
  @Test
  void oneLetterEscapes() {
    assertThat(Tokenizer.argv("x\\a\\b\\E\\f\\n\\r\\t\\v"))
        .containsExactly("x\u0007\b\u001b\f\n\r\t\u000b");
  }

  @Test
  void hexTakesAtMostTwoDigits() {
    assertThat(Tokenizer.argv("\\x41\\x4g\\x414")).containsExactly("A\u0004gA4");
    assertThat(Tokenizer.argv("a\\x")).containsExactly("a\u0000");
  }

  @Test
  void octalTakesAtMostThreeDigitsKeptToAByte() {
    assertThat(Tokenizer.argv("\\101\\0z\\1234\\777")).containsExactly("A\u0000zS4\u00ff");
  }

  @Test
  void controlCharactersAndPlainEscapes() {
    assertThat(Tokenizer.argv("\\cA\\c[")).containsExactly("\u0001\u001b");
    assertThat(Tokenizer.argv("a\\c")).containsExactly("ac");
    assertThat(Tokenizer.argv("\\q\\\\ a\\ b")).containsExactly("q\\", "a b");
    assertThat(Tokenizer.argv("a\\")).containsExactly("a\\");
  }

  @Test
  void singleQuotesKeepBackslashesDoubleQuotesDoNot() {
    assertThat(Tokenizer.argv("'a\\n' \"a\\tb\"")).containsExactly("a\\n", "a\tb");
    assertThat(Tokenizer.quotedWords("a\\tb")).containsExactly("a\\tb");
  }
}
