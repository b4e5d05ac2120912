package io.fairway.cli;

import io.fairway.proxy.plane.ProxyTable;
import io.fairway.table.ServiceEntry;
import io.fairway.table.Table;
import io.fairway.table.TableException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fairway training-run --dir DIR} (hidden): a short, real {@code fairway run} that stops by
 * itself, for the Debian package's postinst to train the class data sharing archive on what a start
 * loads (parser, plan, checkers, applier, the userspace proxy, the admin endpoint) and what the
 * unit's {@code check-config} before it loads; a run-trained archive started 1,000 servers in 1.26
 * s against 1.8 s for one trained on {@code check-config} alone.
 *
 * <p>It must not disturb the machine it is installed on, so it owns everything it touches: its one
 * backend is its own loopback listener on a port the system picks, the virtual servers listen on
 * 127.0.0.1 and 127.0.0.2 port 0, the admin endpoint on 127.0.0.1 port 0 with a token in {@code
 * DIR}, and the configuration is written to {@code DIR}. It checks no real server and binds no port
 * anyone configured. Once the table is applied it waits (at most a few seconds) for both checkers
 * to have reached the backend, sends one request through each virtual server and stops as at
 * SIGTERM, with no grace period.
 */
@Command(
    name = "training-run",
    hidden = true,
    mixinStandardHelpOptions = true,
    description =
        "A short run on loopback that stops by itself (the package's class data sharing training).")
public final class TrainingRunCommand implements Callable<Integer> {
  /** How long the run waits for the first checks to reach the backend. */
  private static final long CHECKS_MS = 5_000;

  @Spec CommandSpec spec;

  @Option(
      names = "--dir",
      required = true,
      paramLabel = "DIR",
      description = "an empty throwaway directory for the configuration and the admin token")
  Path dir;

  @Override
  public Integer call() throws Exception {
    try (Backend backend = new Backend()) {
      Path conf = dir.resolve("training.conf");
      Files.writeString(conf, config(backend.port()));
      Path token = dir.resolve("admin.token");
      Files.deleteIfExists(token);
      Files.createFile(
          token,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(token, "training\n");
      // fairway.service runs check-config before every start (ExecStartPre): its classes too.
      java.io.PrintWriter discard = new java.io.PrintWriter(Writer.nullWriter());
      Main.execute(
          new String[] {"check-config", "--dump", "-f", conf.toString()}, discard, discard);
      RunCommand run = new RunCommand();
      var err = spec.commandLine().getErr();
      run.whenReady = table -> err.println("fairway training-run: " + exercise(table, backend));
      CommandLine cl = new CommandLine(run);
      cl.setOut(spec.commandLine().getOut());
      cl.setErr(spec.commandLine().getErr());
      return cl.execute(
          "--userspace",
          "-f",
          conf.toString(),
          "--admin",
          "127.0.0.1:0",
          "--admin-token-file",
          token.toString(),
          "--grace-period",
          "0");
    }
  }

  /**
   * Two virtual servers, an L4 relay with a TCP check and an HTTP proxy with an HTTP check. The
   * checks are lenient (3 s to answer, three failures in a row): a postinst can run on a busy
   * machine, and a server marked down there would leave the proxy's request path out of the archive
   * (an HTTP check went unanswered for 3 s once, with the training run at nice 10 at load 30).
   */
  static String config(int backend) {
    return "global_defs {\n  router_id fairway_training\n}\n"
        + "virtual_server 127.0.0.1 0 {\n  delay_loop 1\n  lb_algo rr\n  lb_kind NAT\n  protocol TCP\n"
        + "  real_server 127.0.0.1 "
        + backend
        + " {\n    weight 1\n"
        + "    TCP_CHECK {\n      connect_timeout 3\n      retry 3\n    }\n  }\n}\n"
        + "virtual_server 127.0.0.2 0 {\n  delay_loop 1\n  lb_algo wlc\n  lb_kind HTTP\n  protocol TCP\n"
        + "  real_server 127.0.0.1 "
        + backend
        + " {\n    weight 1\n"
        + "    HTTP_GET {\n      url {\n        path /\n        status_code 200\n      }\n"
        + "      connect_timeout 3\n      retry 3\n    }\n  }\n}\n";
  }

  /**
   * The checks reach the backend (bounded), then one request through each virtual server; says what
   * happened. A failure means fewer classes in the archive, nothing else: the training goes on to a
   * clean stop.
   */
  private static String exercise(Table table, Backend backend) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CHECKS_MS);
    int relayed = 0;
    int services = 0;
    try {
      backend.awaitRequests(2, end);
      int checks = backend.connections();
      for (ServiceEntry e : table.list()) {
        InetSocketAddress vip = ((ProxyTable) table).boundAddress(e.service().key());
        services++;
        if (vip != null && request(vip)) {
          relayed++;
        }
      }
      return checks
          + " check connection(s) reached the backend, "
          + relayed
          + " of "
          + services
          + " virtual servers relayed a request";
    } catch (IOException | TableException e) {
      return "stopped early: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** One request through {@code vip}; whether the backend's answer came back. */
  private static boolean request(InetSocketAddress vip) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(vip, 2000);
      s.setSoTimeout(2000);
      s.getOutputStream()
          .write(
              "GET / HTTP/1.1\r\nHost: training\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII)
          .startsWith("HTTP/1.1 200");
    }
  }

  /**
   * The training's own backend: a loopback listener on a port the system picks that answers every
   * connection with a short 200 (a TCP check just connects and closes). One thread, bounded reads.
   */
  static final class Backend implements AutoCloseable {
    private final ServerSocket socket;
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread thread;

    Backend() throws IOException {
      socket = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
      thread = new Thread(this::serve, "training-backend");
      thread.setDaemon(true);
      thread.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    int connections() {
      return connections.get();
    }

    private void serve() {
      while (!socket.isClosed()) {
        try (Socket c = socket.accept()) {
          c.setSoTimeout(2000);
          readHead(c.getInputStream());
          OutputStream out = c.getOutputStream();
          out.write(
              "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n"
                  .getBytes(StandardCharsets.US_ASCII));
          out.flush();
        } catch (IOException e) {
          // A check that hung up, or the listener closed: next one.
        } finally {
          synchronized (this) {
            connections.incrementAndGet();
            notifyAll();
          }
        }
      }
    }

    /** Reads up to the end of a request head, EOF, or 8 KiB. */
    private static void readHead(InputStream in) throws IOException {
      int state = 0;
      for (int i = 0; i < 8192 && state < 4; i++) {
        int b = in.read();
        if (b < 0) {
          return;
        }
        state = (b == '\r' && state % 2 == 0) || (b == '\n' && state % 2 == 1) ? state + 1 : 0;
      }
    }

    /** Waits until {@code n} connections were answered, or until {@code deadline} (nanoTime). */
    synchronized void awaitRequests(int n, long deadline) throws InterruptedException {
      long left;
      while (connections.get() < n && (left = deadline - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
