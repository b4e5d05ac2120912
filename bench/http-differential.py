#!/usr/bin/env python3
"""HTTP/1.1 request parsing differential: Fairway against HAProxy and nginx (issue 16).

Every request of a generated corpus of malformed and edge-case requests (>= 500) is sent, raw, on
a fresh loopback connection to three servers:
  nginx    nginx 1.22 as an origin (`return 200`), behind nothing;
  haproxy  HAProxy 2.6 as an origin (`http-request return status 200`), behind nothing;
  fairway  Fairway's HTTP proxy (ProxyMain http) in front of another nginx origin.
Each answer is classified: ACCEPT (2xx from the origin), REFUSE (a 4xx/5xx status), CLOSE (closed
without an answer), WAIT (no answer within the timeout: the server waits for more bytes). For
Fairway, an answer that came from nginx behind it (Server: nginx) means Fairway FORWARDED the
request; a refusal of its own means Fairway refused it.

Printed: one TSV line per request (id, nginx, haproxy, fairway, forwarded?, description), then the
disagreements the issue asks for: requests Fairway forwards that a peer refuses, and requests it
refuses that both peers accept.

  bench/http-differential.py FAIRWAY_PORT NGINX_PORT HAPROXY_PORT   (servers already running)
  bench/http-differential.sh                                       (starts all three, then this)
"""
import socket
import sys
from concurrent.futures import ThreadPoolExecutor

TIMEOUT = 1.5


def corpus():
    """(description, bytes) pairs: a base request varied one way at a time, and combinations."""
    out = []

    def add(desc, raw):
        out.append((desc, raw if isinstance(raw, bytes) else raw.encode("latin-1")))

    base = "GET / HTTP/1.1\r\nHost: a\r\n\r\n"
    add("baseline GET", base)
    # Request line
    for m in ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "get", "G@T",
              "GE T", "CONNECT", "PRI", "X" * 40, "", "G\x00T", "GET\t", "MKCOL", "BREW"]:
        add(f"method {m!r}", f"{m} / HTTP/1.1\r\nHost: a\r\n\r\n")
    for t in ["/", "*", "/a b", "/%00", "/\x7f", "/\x80", "http://a/", "http://b/", "HTTP://A/x",
              "https://a/", "a/b", "//a", "/?q=1#f", "/" + "a" * 5000, "/" + "a" * 9000, "",
              "/\t", "/..%2f..", "/%", "http://a:80/", "http://[::1]/", "http:///", "ftp://a/"]:
        add(f"target {t[:30]!r} (len {len(t)})", f"GET {t} HTTP/1.1\r\nHost: a\r\n\r\n")
    for v in ["HTTP/1.1", "HTTP/1.0", "HTTP/0.9", "HTTP/2.0", "HTTP/1.2", "HTTP/1.10", "HTTP/3",
              "http/1.1", "HTTP/1", "HTTP/ 1.1", "HTTP/1.1 ", "HTTP/11", "HTTP/9.9", "HTTPS/1.1",
              "HTTP/1.1x", ""]:
        add(f"version {v!r}", f"GET / {v}\r\nHost: a\r\n\r\n")
    add("HTTP/0.9 simple request", "GET /\r\n\r\n")
    add("two spaces after method", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n")
    add("two spaces before version", "GET /  HTTP/1.1\r\nHost: a\r\n\r\n")
    add("tab separators in request line", "GET\t/\tHTTP/1.1\r\nHost: a\r\n\r\n")
    add("leading CRLF before request line", "\r\n" + base)
    add("two leading CRLF", "\r\n\r\n" + base)
    add("leading space", " " + base)
    add("leading LF", "\n" + base)
    add("request line ends in bare LF", "GET / HTTP/1.1\nHost: a\r\n\r\n")
    add("request line ends in bare CR", "GET / HTTP/1.1\rHost: a\r\n\r\n")
    # Line endings
    add("all bare LF", "GET / HTTP/1.1\nHost: a\n\n")
    add("header ends in bare LF", "GET / HTTP/1.1\r\nHost: a\n\r\n")
    add("header ends in bare CR", "GET / HTTP/1.1\r\nHost: a\rX: y\r\n\r\n")
    add("end of head LF only", "GET / HTTP/1.1\r\nHost: a\r\n\n")
    add("CR CR LF", "GET / HTTP/1.1\r\nHost: a\r\r\n\r\n")
    # Host
    add("HTTP/1.1 without Host", "GET / HTTP/1.1\r\n\r\n")
    add("HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n")
    add("two Host headers", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")
    add("two equal Host headers", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n")
    add("empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n")
    add("Host list", "GET / HTTP/1.1\r\nHost: a, b\r\n\r\n")
    for h in ["a:80", "a:", "a:99999", "a:x", "[::1]", "[::1]:80", "::1", "a b", "a/b", "a@b",
              "\x00", "a\x00", "_", "a..b", "-a", "A" * 300, "a\tb", "a%20b", "\u00e9".encode("utf-8").decode("latin-1")]:
        add(f"Host {h[:20]!r}", f"GET / HTTP/1.1\r\nHost: {h}\r\n\r\n")
    add("absolute-form with other Host", "GET http://b/ HTTP/1.1\r\nHost: a\r\n\r\n")
    add("absolute-form without Host", "GET http://b/ HTTP/1.1\r\n\r\n")
    # Header syntax
    names = ["X", "X-A", "x_a", "X A", "X\tA", "X\x00A", "X\x7fA", "X\x80A", "X:A", "X/A", "X@",
             "{X}", "X\"", "", " X", "X ", "\tX", "X\x01", "Content-Length ", "Transfer-Encoding "]
    for n in names:
        add(f"header name {n!r}", f"GET / HTTP/1.1\r\nHost: a\r\n{n}: v\r\n\r\n")
    values = ["", " ", "v ", " v", "\tv", "v\t", "a\x00b", "a\x01b", "a\x7fb", "a\x80b", "a\xffb",
              "a\rb", "a\x0bb", "a\x0cb", "\u00e9".encode("utf-8").decode("latin-1"), "x" * 8000,
              "x" * 20000, "a\"b", "a\\b", "(comment)", "=?utf-8?q?x?="]
    for v in values:
        add(f"header value {v[:20]!r} (len {len(v)})", f"GET / HTTP/1.1\r\nHost: a\r\nX: {v}\r\n\r\n")
    add("header without colon", "GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n")
    add("header only colon", "GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n")
    add("obs-fold space", "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n")
    add("obs-fold tab", "GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n\tb\r\n\r\n")
    add("obs-fold on Host", "GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n")
    add("first header line folded", "GET / HTTP/1.1\r\n X: a\r\nHost: a\r\n\r\n")
    add("space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n")
    add("tab before colon", "GET / HTTP/1.1\r\nHost\t: a\r\n\r\n")
    add("100 headers", "GET / HTTP/1.1\r\nHost: a\r\n" + "".join(f"X-{i}: v\r\n" for i in range(100)) + "\r\n")
    add("1000 headers", "GET / HTTP/1.1\r\nHost: a\r\n" + "".join(f"X-{i}: v\r\n" for i in range(1000)) + "\r\n")
    add("head 70 KB", "GET / HTTP/1.1\r\nHost: a\r\n" + "".join(f"X-{i}: {'v' * 60}\r\n" for i in range(1100)) + "\r\n")
    # Content-Length
    cls = ["0", "5", "05", "+5", "-5", " 5", "5 ", "5,5", "5, 5", "5,6", "0x5", "5.0", "", "a",
           "99999999999999999999", "18446744073709551616", "9223372036854775807", "1e3", "5\x00"]
    for c in cls:
        add(f"Content-Length {c!r} + 5 bytes", f"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: {c}\r\n\r\nhello")
    add("two equal Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello")
    add("two different Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!")
    add("Content-Length on GET", "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello")
    add("short body then close", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhello")
    add("body longer than Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhello")
    # Transfer-Encoding
    tes = ["chunked", "Chunked", "CHUNKED", " chunked", "chunked ", "\tchunked", "chunked\t",
           "chunked, chunked", "gzip, chunked", "chunked, gzip", "identity", "gzip", "x", "",
           "chunked;q=1", "\"chunked\"", "chunk", "chunked\x00", "xchunked", "chunked,", ",chunked",
           "identity, chunked", "cHuNkEd"]
    for te in tes:
        add(f"Transfer-Encoding {te!r}",
            f"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: {te}\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    add("Transfer-Encoding:<TAB>chunked", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding:\tchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    add("two TE headers", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    add("CL then TE", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    add("TE then CL", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    add("TE on HTTP/1.0", "POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    add("TE on GET", "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    # Chunked framing
    sizes = ["5", "05", "0005", "5 ", " 5", "5\t", "+5", "-5", "0x5", "5;", "5;a", "5;a=b", "5;a=\"b\"",
             "5 ;a", "5; a", "5;a=b c", "5;\x00", "g", "", "fffffffffffffffff5", "ffffffffffffffff",
             "7fffffffffffffff", "5\x00", "5,", "5.0", "A", "a", "0" * 100 + "5"]
    for sz in sizes:
        add(f"chunk size {sz[:24]!r}",
            f"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n{sz}\r\nhello\r\n0\r\n\r\n")
    endings = [("chunk data ends LF", "5\r\nhello\n0\r\n\r\n"), ("chunk data no CRLF", "5\r\nhello0\r\n\r\n"),
               ("chunk size line bare LF", "5\nhello\r\n0\r\n\r\n"), ("last chunk bare LF", "5\r\nhello\r\n0\n\n"),
               ("last chunk missing", "5\r\nhello\r\n"), ("trailer", "5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n"),
               ("trailer obs-fold", "5\r\nhello\r\n0\r\nX-T: 1\r\n 2\r\n\r\n"),
               ("trailer bad name", "5\r\nhello\r\n0\r\nX T: 1\r\n\r\n"),
               ("trailer Content-Length", "5\r\nhello\r\n0\r\nContent-Length: 5\r\n\r\n"),
               ("trailer no final CRLF", "5\r\nhello\r\n0\r\nX: 1\r\n"),
               ("chunk longer than size", "3\r\nhello\r\n0\r\n\r\n"),
               ("chunk shorter than size", "9\r\nhello\r\n0\r\n\r\n"),
               ("zero chunk with extension", "5\r\nhello\r\n0;x=y\r\n\r\n"),
               ("CR in extension", "5;a\rb\r\nhello\r\n0\r\n\r\n"),
               ("many chunks", "1\r\na\r\n" * 200 + "0\r\n\r\n"),
               ("long extension", "5;" + "a" * 5000 + "\r\nhello\r\n0\r\n\r\n"),
               ("smuggled request after body", "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n")]
    for d, body in endings:
        add(d, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
    # Connection, Upgrade, Expect, hop-by-hop
    for c in ["close", "keep-alive", "Close", "close, X-Forwarded-For", "X-Forwarded-For", "Host",
              "Content-Length", "Transfer-Encoding", "upgrade", "te", "", ",", "close,,", "\x00",
              "keep-alive, close", "Upgrade, HTTP2-Settings"]:
        add(f"Connection {c!r}", f"GET / HTTP/1.1\r\nHost: a\r\nConnection: {c}\r\nX-Forwarded-For: 6.6.6.6\r\n\r\n")
    add("two Connection headers", "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\nConnection: keep-alive\r\n\r\n")
    add("Upgrade websocket", "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: x\r\nSec-WebSocket-Version: 13\r\n\r\n")
    add("Upgrade h2c", "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n")
    add("Upgrade without Connection", "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n")
    add("HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    for e in ["100-continue", "100-Continue", "200-ok", "", "100-continue, x"]:
        add(f"Expect {e!r}", f"POST / HTTP/1.1\r\nHost: a\r\nExpect: {e}\r\nContent-Length: 5\r\n\r\nhello")
    add("TE: trailers", "GET / HTTP/1.1\r\nHost: a\r\nTE: trailers\r\n\r\n")
    add("Keep-Alive header", "GET / HTTP/1.1\r\nHost: a\r\nKeep-Alive: timeout=5\r\n\r\n")
    add("Proxy-Connection", "GET / HTTP/1.1\r\nHost: a\r\nProxy-Connection: keep-alive\r\n\r\n")
    add("X-Forwarded-For from client", "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 6.6.6.6\r\n\r\n")
    add("Forwarded from client", "GET / HTTP/1.1\r\nHost: a\r\nForwarded: for=6.6.6.6\r\n\r\n")
    # Binary and junk
    add("NUL byte alone", b"\x00")
    add("NULs", b"\x00" * 64)
    add("TLS ClientHello", bytes.fromhex("16030100a5010000a10303") + b"\x00" * 40)
    add("SSH banner", "SSH-2.0-OpenSSH_9.2\r\n")
    add("binary junk", bytes(range(256)))
    add("only CRLF", "\r\n")
    add("only CRLFCRLF", "\r\n\r\n")
    add("empty line then junk", "\r\nxyz\r\n\r\n")
    add("UTF-8 BOM before method", b"\xef\xbb\xbf" + base.encode())
    add("pipelined two GETs", base + base)
    add("pipelined GET then junk", base + "junk\r\n\r\n")
    add("GET then incomplete", base + "GET / HTTP/1.1\r\n")
    # Combinations: every method with several body framings
    for m in ["GET", "HEAD", "POST", "PUT", "OPTIONS", "DELETE"]:
        for d, extra in [("CL 0", "Content-Length: 0\r\n\r\n"), ("CL 5", "Content-Length: 5\r\n\r\nhello"),
                         ("chunked", "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
                         ("CL+TE", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                         ("TE identity", "Transfer-Encoding: identity\r\n\r\n"),
                         ("no framing 1.0", None)]:
            if extra is None:
                add(f"{m} HTTP/1.0 no framing", f"{m} / HTTP/1.0\r\n\r\n")
            else:
                add(f"{m} {d}", f"{m} / HTTP/1.1\r\nHost: a\r\n{extra}")
    # Control characters at every position class
    for c in list(range(0, 32)) + [127, 0x80, 0x85, 0xa0, 0xff]:
        ch = chr(c)
        add(f"\\x{c:02x} in method", f"G{ch}ET / HTTP/1.1\r\nHost: a\r\n\r\n")
        add(f"\\x{c:02x} in target", f"GET /{ch} HTTP/1.1\r\nHost: a\r\n\r\n")
        add(f"\\x{c:02x} in version", f"GET / HTTP/1{ch}1\r\nHost: a\r\n\r\n")
        add(f"\\x{c:02x} in header name", f"GET / HTTP/1.1\r\nHost: a\r\nX{ch}Y: v\r\n\r\n")
        add(f"\\x{c:02x} in header value", f"GET / HTTP/1.1\r\nHost: a\r\nX: v{ch}w\r\n\r\n")
        add(f"\\x{c:02x} in Host", f"GET / HTTP/1.1\r\nHost: a{ch}\r\n\r\n")
        add(f"\\x{c:02x} before colon", f"GET / HTTP/1.1\r\nHost: a\r\nX{ch}: v\r\n\r\n")
        add(f"\\x{c:02x} in chunk size", f"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5{ch}\r\nhello\r\n0\r\n\r\n")
    return out


def send(port, raw):
    """The status of the first answer ('ACCEPT nnn', 'REFUSE nnn'), CLOSE or WAIT; Server header."""
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    try:
        s.sendall(raw)
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 65536:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                return ("WAIT", "") if not data else (classify(data), server(data))
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
        if not data:
            return ("CLOSE", "")
        return (classify(data), server(data))
    except (BrokenPipeError, ConnectionResetError):
        return ("CLOSE", "")
    finally:
        s.close()


def classify(data):
    line = data.split(b"\r\n", 1)[0].decode("latin-1")
    parts = line.split(" ")
    if len(parts) < 2 or not parts[1].isdigit():
        return "JUNK"
    code = int(parts[1])
    return ("ACCEPT " if code < 400 else "REFUSE ") + parts[1]


def server(data):
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
    for line in head.split("\r\n"):
        if line.startswith("server:"):
            return line[7:].strip()
    return ""


def main():
    fairway, nginx, haproxy = (int(a) for a in sys.argv[1:4])
    reqs = corpus()
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda r: (send(nginx, r[1]), send(haproxy, r[1]), send(fairway, r[1])), reqs))
    print(f"# {len(reqs)} requests; columns: id nginx haproxy fairway forwarded description")
    rows = []
    for i, ((desc, _), (n, h, f)) in enumerate(zip(reqs, results)):
        forwarded = f[1].startswith("nginx")  # the answer came from the nginx behind Fairway
        rows.append((i, n[0], h[0], f[0], forwarded, desc))
        print(f"{i}\t{n[0]}\t{h[0]}\t{f[0]}\t{'fwd' if forwarded else '-'}\t{desc}")
    accepted = lambda c: c.startswith("ACCEPT")
    refused = lambda c: not accepted(c)
    print("\n# Fairway forwards, a peer refuses")
    for i, n, h, f, fwd, desc in rows:
        if fwd and (refused(n) or refused(h)):
            print(f"{i}\tnginx={n}\thaproxy={h}\tfairway={f}\t{desc}")
    print("\n# Fairway refuses, both peers accept")
    for i, n, h, f, fwd, desc in rows:
        if not fwd and accepted(n) and accepted(h):
            print(f"{i}\tnginx={n}\thaproxy={h}\tfairway={f}\t{desc}")


if __name__ == "__main__":
    main()
