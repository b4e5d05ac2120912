package io.fairway.os.script;

import org.jspecify.annotations.Nullable;

/**
 * How a script ended.
 *
 * @param exitCode the exit status (0..255), or -1 if it did not exit by itself
 * @param timedOut it outlived its timeout and its process group was killed
 * @param error why it could not run at all, or {@code null}
 */
public record ScriptOutcome(int exitCode, boolean timedOut, @Nullable String error) {

  public boolean ran() {
    return error == null && !timedOut;
  }

  public String describe() {
    if (error != null) {
      return error;
    }
    return timedOut ? "timed out, process group killed" : "exit " + exitCode;
  }
}
