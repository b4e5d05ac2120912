package io.fairway.daemon.uml;

import io.fairway.check.config.CheckSpecs;
import io.fairway.check.engine.CheckEngine;
import io.fairway.daemon.Daemon;
import io.fairway.daemon.KeepalivedLoader;
import io.fairway.ipvs.kernel.IpvsKernelTable;
import io.fairway.testkit.uml.Uml;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs inside user-mode Linux (booted by {@link KernelReloadTest}): {@code fairway run}'s daemon on
 * the kernel's IPVS, in this JVM, reloading one plan field at a time. After each reload it writes
 * to /run/out/STEP.txt: the reload's answer, {@code ipvsadm -Sn} and {@code ipvsadm -Ln
 * --thresholds} (the kernel's own view), which backend each of 64 new connections reached, the
 * requests that failed while the reload ran, and whether a connection opened before the first
 * reload still works.
 */
public final class KernelReloadMain {
  static final Path OUT = Path.of(Uml.OUT);
  static final String VIP = "10.16.0.1";

  /**
   * New connections measured after each reload: 16 rounds of a 3:1 wrr cycle, and enough that
   * sh-port reaching only the weight-3 server by chance ((3/4)^64) does not happen.
   */
  static final int PROBES = 64;

  /** The fields one step varies; every reload changes one of them. */
  record Conf(
      String algo, String vsExtra, String kind, int w1, String rs1Extra, boolean b2, boolean b3) {
    Conf algo(String a, String extra) {
      return new Conf(a, extra, kind, w1, rs1Extra, b2, b3);
    }

    Conf vs(String extra) {
      return new Conf(algo, extra, kind, w1, rs1Extra, b2, b3);
    }

    Conf weight(int w) {
      return new Conf(algo, vsExtra, kind, w, rs1Extra, b2, b3);
    }

    Conf rs1(String extra) {
      return new Conf(algo, vsExtra, kind, w1, extra, b2, b3);
    }

    Conf servers(boolean two, boolean three) {
      return new Conf(algo, vsExtra, kind, w1, rs1Extra, two, three);
    }

    Conf kind(String k) {
      return new Conf(algo, vsExtra, k, w1, rs1Extra, b2, b3);
    }

    /** The file; {@code keep} is the backend the long-lived connection is on (never removed). */
    String text(String keep) {
      StringBuilder s =
          new StringBuilder(
              "virtual_server "
                  + VIP
                  + " 80 {\n    lb_algo "
                  + algo
                  + "\n    lb_kind "
                  + kind
                  + "\n    protocol TCP\n"
                  + vsExtra);
      String other = keep.equals("b1") ? "b2" : "b1";
      // b1 and b2 swap roles when the long-lived connection is on b2: the one it is on stays.
      s.append(rs(keep.equals("b1") ? 1 : 2, w1, rs1Extra));
      if (b2) {
        s.append(rs(other.equals("b1") ? 1 : 2, 1, ""));
      }
      if (b3) {
        s.append(rs(3, 1, ""));
      }
      return s.append("}\n").toString();
    }

    private static String rs(int n, int weight, String extra) {
      return "    real_server 10.16.1."
          + n
          + " 80 {\n        weight "
          + weight
          + "\n"
          + extra
          + "    }\n";
    }
  }

  public static void main(String[] args) throws Exception {
    for (int a = 1; a <= 3; a++) {
      sh("ip addr add 10.16.1." + a + "/32 dev lo");
      backend(a);
    }
    sh("ip addr add " + VIP + "/32 dev lo"); // the client is local: IPVS's LOCAL_OUT hook takes it

    Path file = Path.of("/run/k.conf");
    Conf base = new Conf("wrr", "", "NAT", 1, "", true, false);
    Files.writeString(file, base.text("b1"));
    IpvsKernelTable table = IpvsKernelTable.open();
    Daemon daemon =
        new Daemon(
            file,
            new KeepalivedLoader(false, CheckSpecs::from),
            table,
            CheckEngine::builder,
            Duration.ZERO,
            Clock.systemUTC());
    long started = System.nanoTime();
    daemon.start();
    Socket kept = new Socket();
    kept.connect(new InetSocketAddress(VIP, 80), 3000);
    kept.setSoTimeout(3000);
    BufferedReader keptIn =
        new BufferedReader(new InputStreamReader(kept.getInputStream(), StandardCharsets.US_ASCII));
    String keep = keptIn.readLine();
    write(
        "kept.txt",
        keep); // from the next file on, the server it is on is the one weighted and kept
    observe(daemon, table, "0-start", null, kept, keptIn);

    Conf c = base;
    c = step(daemon, table, file, keep, kept, keptIn, "1-weight", c.weight(3), true);
    c =
        step(
            daemon,
            table,
            file,
            keep,
            kept,
            keptIn,
            "2-thresholds",
            c.rs1("        uthreshold 2\n        lthreshold 1\n"),
            true);
    c = step(daemon, table, file, keep, kept, keptIn, "3-no-thresholds", c.rs1(""), true);
    c =
        step(
            daemon,
            table,
            file,
            keep,
            kept,
            keptIn,
            "4-persistence",
            c.vs("    persistence_timeout 60\n"),
            true);
    c = step(daemon, table, file, keep, kept, keptIn, "5-no-persistence", c.vs(""), true);
    c = step(daemon, table, file, keep, kept, keptIn, "6-scheduler", c.algo("sh", ""), true);
    c = step(daemon, table, file, keep, kept, keptIn, "7-flags", c.vs("    sh-port\n"), true);
    c = step(daemon, table, file, keep, kept, keptIn, "8-servers", c.servers(false, true), true);
    // DR to a local address: IPVS hands the packet to the local stack unchanged (to the VIP,
    // where nothing listens), so no new connection can be measured; the table and the
    // connection made under NAT still can.
    step(daemon, table, file, keep, kept, keptIn, "9-forwarding", c.kind("DR"), false);
    write("took.txt", Long.toString(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)));
    daemon.stop();
    table.close();
  }

  static Conf step(
      Daemon daemon,
      IpvsKernelTable table,
      Path file,
      String keep,
      Socket kept,
      BufferedReader keptIn,
      String name,
      Conf next,
      boolean traffic)
      throws Exception {
    Files.writeString(file, next.text(keep));
    observe(daemon, table, name, traffic ? new Traffic() : null, kept, keptIn);
    return next;
  }

  /**
   * Reloads (unless {@code step} is the start) under {@code traffic}, then writes what the kernel
   * has.
   */
  static void observe(
      Daemon daemon,
      IpvsKernelTable table,
      String step,
      Traffic traffic,
      Socket kept,
      BufferedReader keptIn)
      throws Exception {
    List<String> out = new ArrayList<>();
    if (!step.equals("0-start")) {
      if (traffic != null) {
        traffic.start();
      }
      String refused = daemon.reload();
      int failed = traffic == null ? -1 : traffic.stop();
      out.add("reload " + (refused == null ? "ok" : refused));
      out.add(
          "failed-during-reload " + failed + (traffic == null ? "" : " of " + traffic.sent.get()));
    }
    out.add("save");
    out.addAll(shLines("ipvsadm -Sn | sort"));
    out.add("thresholds");
    out.addAll(shLines("ipvsadm -Ln --thresholds"));
    if (traffic != null || step.equals("0-start")) {
      List<String> reached = new ArrayList<>();
      for (int i = 0; i < PROBES; i++) {
        reached.add(probe());
      }
      out.add("reached " + String.join(" ", reached));
    }
    kept.getOutputStream().write("ping\n".getBytes(StandardCharsets.US_ASCII));
    String echo;
    try {
      echo = keptIn.readLine();
    } catch (IOException e) {
      echo = e.toString();
    }
    out.add("kept " + echo);
    write(step + ".txt", String.join("\n", out));
  }

  /** A new connection to the VIP: the backend's name, or why it failed. */
  static String probe() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(VIP, 80), 3000);
      s.setSoTimeout(3000);
      String name =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
              .readLine();
      return name == null ? "closed" : name;
    } catch (IOException e) {
      return "error";
    }
  }

  /** New connections, one after another, while a reload runs; bounded, stopped by {@link #stop}. */
  static final class Traffic {
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicInteger sent = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    Thread thread;

    void start() throws InterruptedException {
      thread =
          new Thread(
              () -> {
                while (!stop.get() && sent.get() < 10_000) {
                  sent.incrementAndGet();
                  if (!probe().startsWith("b")) {
                    failed.incrementAndGet();
                  }
                }
              },
              "reload-traffic");
      thread.start();
      while (sent.get() < 3 && thread.isAlive()) {
        Thread.onSpinWait(); // the reload starts under way traffic, not before it
      }
    }

    int stop() throws InterruptedException {
      stop.set(true);
      thread.join();
      return failed.get();
    }
  }

  /** A backend on 10.16.1.N:80: sends its name on accept, then echoes lines. */
  static void backend(int n) throws IOException {
    ServerSocket ss = new ServerSocket();
    ss.setReuseAddress(true);
    ss.bind(new InetSocketAddress(InetAddress.getByName("10.16.1." + n), 80), 128);
    Thread t =
        new Thread(
            () -> {
              while (true) {
                Socket c;
                try {
                  c = ss.accept();
                } catch (IOException e) {
                  return;
                }
                Thread h = new Thread(() -> serve(c, "b" + n), "backend-b" + n + "-conn");
                h.setDaemon(true);
                h.start();
              }
            },
            "backend-b" + n);
    t.setDaemon(true);
    t.start();
  }

  private static void serve(Socket c, String name) {
    try (c) {
      OutputStream o = c.getOutputStream();
      o.write((name + "\n").getBytes(StandardCharsets.US_ASCII));
      o.flush();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.US_ASCII));
      String line;
      while ((line = in.readLine()) != null) {
        o.write((name + " " + line + "\n").getBytes(StandardCharsets.US_ASCII));
        o.flush();
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  static void write(String name, String text) throws IOException {
    Files.writeString(OUT.resolve(name), text + "\n");
  }

  static List<String> shLines(String cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("/bin/sh", "-c", cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return out.lines().toList();
  }

  static void sh(String cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("/bin/sh", "-c", cmd).inheritIO().start();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(cmd + ": failed");
    }
  }
}
