package io.fairway.check.script;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** The few libc calls the JDK has no API for: signalling a whole process group. */
interface ProcessCalls extends Library {
  ProcessCalls INSTANCE = Native.load("c", ProcessCalls.class);

  int kill(int pid, int sig);

  int geteuid();
}
