package io.fairway.daemon.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalFormatTest {
  @TempDir Path dir;

  @Test
  void severitiesAreSyslogs() {
    assertThat(JournalFormat.severity(Level.ERROR)).isEqualTo(3);
    assertThat(JournalFormat.severity(Level.WARN)).isEqualTo(4);
    assertThat(JournalFormat.severity(Level.INFO)).isEqualTo(6);
    assertThat(JournalFormat.severity(Level.DEBUG)).isEqualTo(7);
    assertThat(JournalFormat.severity(Level.TRACE)).isEqualTo(7);
  }

  @Test
  void journalStreamCountsOnlyWhenItIsStderr() throws Exception {
    Path stderr = Files.createFile(dir.resolve("stderr"));
    String id =
        Files.getAttribute(stderr, "unix:dev") + ":" + Files.getAttribute(stderr, "unix:ino");
    assertThat(JournalFormat.stderrIsJournal(Map.of("JOURNAL_STREAM", id), stderr)).isTrue();
    // Inherited by a child whose stderr was redirected elsewhere: not the journal.
    Path other = Files.createFile(dir.resolve("other"));
    assertThat(JournalFormat.stderrIsJournal(Map.of("JOURNAL_STREAM", id), other)).isFalse();
    assertThat(JournalFormat.stderrIsJournal(Map.of(), stderr)).isFalse();
    assertThat(JournalFormat.stderrIsJournal(Map.of("JOURNAL_STREAM", "garbage"), stderr))
        .isFalse();
  }

  @Test
  void aFacilityOutsideLocal0To7IsRefused() {
    assertThatThrownBy(() -> JournalFormat.localFacility(8)).hasMessageContaining("0..7");
    assertThatThrownBy(() -> JournalFormat.localFacility(-1)).hasMessageContaining("0..7");
  }
}
