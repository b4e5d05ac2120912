package io.fairway.daemon.systemd;

import com.sun.jna.LastErrorException;
import io.fairway.os.LibC;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What systemd is on the receiving side of NOTIFY_SOCKET: a bound AF_UNIX datagram socket that
 * collects each message. A reader thread calls {@code onMessage} for each, in order, before it
 * reads the next (so a test can look at the world at the moment a message arrived).
 */
public final class NotifySocket implements AutoCloseable {
  private static final int EAGAIN = 11;

  private final String address;
  private final int fd;
  private final List<String> messages = new CopyOnWriteArrayList<>();
  private final Thread reader;
  private volatile boolean closed;

  /** Binds {@code address} (a path, or {@code @name} in the abstract namespace). */
  public NotifySocket(String address, Consumer<String> onMessage) throws IOException {
    this.address = address;
    fd = LibC.socket(1, LibC.SOCK_DGRAM, 0);
    try {
      LibC.bind(fd, UnixDatagram.sockaddr(address), UnixDatagram.sockaddr(address).length);
      // Wake up every 200 ms to notice close().
      ByteBuffer tv = ByteBuffer.allocate(16).order(ByteOrder.nativeOrder());
      tv.putLong(0).putLong(200_000);
      LibC.setsockopt(fd, LibC.SOL_SOCKET, LibC.SO_RCVTIMEO, tv.array(), 16);
    } catch (LastErrorException e) {
      LibC.Quiet.close(fd);
      throw new IOException("bind " + address + ": errno " + e.getErrorCode(), e);
    }
    reader =
        new Thread(
            () -> {
              ByteBuffer buf = ByteBuffer.allocateDirect(4096);
              while (!closed) {
                long n;
                try {
                  n = LibC.recv(fd, buf, buf.capacity(), 0);
                } catch (LastErrorException e) {
                  if (e.getErrorCode() == EAGAIN) {
                    continue;
                  }
                  return;
                }
                byte[] bytes = new byte[(int) n];
                buf.get(0, bytes);
                String m = new String(bytes, StandardCharsets.UTF_8);
                onMessage.accept(m);
                messages.add(m);
              }
            },
            "notify-socket");
    reader.setDaemon(true);
    reader.start();
  }

  public String address() {
    return address;
  }

  /** Every message received so far, in order. */
  public List<String> messages() {
    return List.copyOf(messages);
  }

  @Override
  public void close() {
    closed = true;
    try {
      reader.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the caller's to see; the socket closes anyway
    }
    LibC.Quiet.close(fd);
  }
}
