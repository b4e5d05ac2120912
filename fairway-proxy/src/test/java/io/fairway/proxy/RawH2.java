package io.fairway.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * An HTTP/2 client made of hand-built frames, for the flood tests: it sends whatever it is told, in
 * the order told, and (when asked to read) notes what comes back: the GOAWAY's error code,
 * RST_STREAM codes, response statuses, and the end of the connection. It never acknowledges the
 * server's SETTINGS, so the server's limits must hold without that.
 *
 * <p>Header blocks are HPACK-encoded by Netty's encoder with every field never indexed, so a block
 * leaves the dynamic table alone and can be sent any number of times.
 */
final class RawH2 implements AutoCloseable {
  static final int DATA = 0;
  static final int HEADERS = 1;
  static final int RST_STREAM = 3;
  static final int SETTINGS = 4;
  static final int PING = 6;
  static final int GOAWAY = 7;
  static final int CONTINUATION = 9;

  static final int END_STREAM = 1;
  static final int END_HEADERS = 4;

  static final long PROTOCOL_ERROR = 1;
  static final long REFUSED_STREAM = 7;
  static final long CANCEL = 8;
  static final long ENHANCE_YOUR_CALM = 11;

  private final Socket socket;
  private final OutputStream out;

  /** The GOAWAY's error code; -1 before one. */
  final AtomicLong goAway = new AtomicLong(-1);

  /** RST_STREAMs received, by error code. */
  final Map<Long, AtomicInteger> resets = new ConcurrentHashMap<>();

  /** Each stream's response {@code :status}. */
  final Map<Integer, String> statuses = new ConcurrentHashMap<>();

  /** The server closed or reset the connection (seen by the reader, or by a failed write). */
  final AtomicBoolean ended = new AtomicBoolean();

  /**
   * The connection was reset while this client read: the server closed with frames of this client
   * still unread on its side, and the reset destroyed what this side had not read yet.
   */
  final AtomicBoolean reset = new AtomicBoolean();

  /**
   * The reader has seen the end (EOF or reset). A failed write can mark the connection {@link
   * #ended} first, while what the server sent before it is still unread.
   */
  final AtomicBoolean readDone = new AtomicBoolean();

  private RawH2(Socket socket) throws IOException {
    this.socket = socket;
    this.out = socket.getOutputStream();
  }

  /**
   * Connects and sends the preface and an empty SETTINGS.
   *
   * @param read read the server's frames (a thread of its own); {@code false}: never read, with a
   *     small receive buffer, as a client flooding a server with frames to answer would
   */
  static RawH2 connect(InetSocketAddress to, boolean read) throws IOException {
    Socket s = new Socket();
    if (!read) {
      s.setReceiveBufferSize(4096);
    }
    s.connect(to, 5000);
    s.setTcpNoDelay(true);
    return start(s, read);
  }

  /**
   * Connects over TLS, offering only {@code h2} by ALPN, trusting the PEM certificate {@code ca}.
   */
  static RawH2 connectTls(InetSocketAddress to, Path ca, String name) throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(ca)) {
      trust.setCertificateEntry(
          "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    Socket plain = new Socket();
    plain.connect(to, 5000);
    plain.setTcpNoDelay(true);
    SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(plain, name, to.getPort(), true);
    SSLParameters p = s.getSSLParameters();
    p.setApplicationProtocols(new String[] {"h2"});
    p.setServerNames(List.of(new SNIHostName(name)));
    s.setSSLParameters(p);
    s.startHandshake();
    if (!"h2".equals(s.getApplicationProtocol())) {
      throw new IOException("ALPN chose " + s.getApplicationProtocol());
    }
    return start(s, true);
  }

  private static RawH2 start(Socket s, boolean read) throws IOException {
    RawH2 c = new RawH2(s);
    byte[] preface = ByteBufUtil.getBytes(Http2CodecUtil.connectionPrefaceBuf());
    c.send(preface, frame(SETTINGS, 0, 0, new byte[0]));
    if (read) {
      Thread t = new Thread(c::readLoop, "raw-h2-reader");
      t.setDaemon(true);
      t.start();
    }
    return c;
  }

  /** Writes the frames in one go; a write the server refused marks the connection ended. */
  synchronized void send(byte[]... frames) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (byte[] f : frames) {
      b.writeBytes(f);
    }
    try {
      out.write(b.toByteArray());
      out.flush();
    } catch (IOException e) {
      ended.set(true);
      throw e;
    }
  }

  /** One frame: the 9-byte header (length, type, flags, stream id), then the payload. */
  static byte[] frame(int type, int flags, int stream, byte[] payload) {
    int n = payload.length;
    byte[] f = new byte[9 + n];
    f[0] = (byte) (n >>> 16);
    f[1] = (byte) (n >>> 8);
    f[2] = (byte) n;
    f[3] = (byte) type;
    f[4] = (byte) flags;
    f[5] = (byte) (stream >>> 24 & 0x7f);
    f[6] = (byte) (stream >>> 16);
    f[7] = (byte) (stream >>> 8);
    f[8] = (byte) stream;
    System.arraycopy(payload, 0, f, 9, n);
    return f;
  }

  static byte[] rst(int stream, long code) {
    return frame(RST_STREAM, 0, stream, int32(code));
  }

  static byte[] ping(long data) {
    byte[] p = new byte[8];
    for (int i = 0; i < 8; i++) {
      p[i] = (byte) (data >>> (56 - 8 * i));
    }
    return frame(PING, 0, 0, p);
  }

  /** The header block of a request for {@code path} on the loopback authority. */
  static byte[] request(String method, String path) {
    return block(
        new DefaultHttp2Headers().method(method).scheme("http").path(path).authority("127.0.0.1"));
  }

  /** {@code h} as a header block, every field never indexed. */
  static byte[] block(Http2Headers h) {
    ByteBuf b = Unpooled.buffer();
    try {
      new DefaultHttp2HeadersEncoder((name, value) -> true).encodeHeaders(1, h, b);
      return ByteBufUtil.getBytes(b);
    } catch (Http2Exception e) {
      throw new IllegalStateException(e);
    } finally {
      b.release();
    }
  }

  /** Sends GET {@code path} on {@code stream}, ending it. */
  void get(int stream, String path) throws IOException {
    send(frame(HEADERS, END_HEADERS | END_STREAM, stream, request("GET", path)));
  }

  int resetsWith(long code) {
    AtomicInteger n = resets.get(code);
    return n == null ? 0 : n.get();
  }

  private static byte[] int32(long v) {
    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
  }

  private void readLoop() {
    DefaultHttp2HeadersDecoder hpack = new DefaultHttp2HeadersDecoder(false);
    try {
      DataInputStream in = new DataInputStream(socket.getInputStream());
      byte[] head = new byte[9];
      while (true) {
        in.readFully(head);
        int n = ((head[0] & 0xff) << 16) | ((head[1] & 0xff) << 8) | (head[2] & 0xff);
        int type = head[3];
        int stream = ((head[5] & 0x7f) << 24) | (head[6] & 0xff) << 16 | (head[7] & 0xff) << 8;
        stream |= head[8] & 0xff;
        byte[] payload = new byte[n];
        in.readFully(payload);
        received(hpack, type, stream, payload);
      }
    } catch (java.net.SocketException e) {
      reset.set(true);
      ended.set(true);
    } catch (IOException | Http2Exception e) {
      ended.set(true);
    } finally {
      readDone.set(true);
    }
  }

  private void received(DefaultHttp2HeadersDecoder hpack, int type, int stream, byte[] p)
      throws Http2Exception {
    if (type == GOAWAY) {
      goAway.set(uint32(p, 4));
    } else if (type == RST_STREAM) {
      resets.computeIfAbsent(uint32(p, 0), k -> new AtomicInteger()).incrementAndGet();
    } else if (type == HEADERS) {
      // Fairway's HEADERS carry neither padding nor priority, and end their block.
      Http2Headers h = hpack.decodeHeaders(stream, Unpooled.wrappedBuffer(p));
      if (h.status() != null) {
        statuses.putIfAbsent(stream, h.status().toString());
      }
    }
  }

  private static long uint32(byte[] p, int at) {
    return ((p[at] & 0xffL) << 24)
        | ((p[at + 1] & 0xffL) << 16)
        | ((p[at + 2] & 0xffL) << 8)
        | (p[at + 3] & 0xffL);
  }

  /**
   * For a client that did not read: reads and drops what the server sent until it ends the
   * connection. False: still open after {@code millis}.
   */
  boolean drainsToEnd(long millis) throws IOException {
    long deadline = System.nanoTime() + millis * 1_000_000;
    byte[] b = new byte[1 << 16];
    try {
      while (System.nanoTime() < deadline) {
        socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        if (socket.getInputStream().read(b) < 0) {
          return true;
        }
      }
      return false;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset: what was still in flight is gone, the connection too
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
