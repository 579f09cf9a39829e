#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TCP clients for the DELUDE/TARPIT VM tests. Each prints one result line.

  connect HOST PORT        connect only: connected[, then reset]|refused|timeout
  greeted HOST PORT        connect, send nothing, read what the peer sends
                           first, close: "greeted N" (its bytes)|closed|
                           reset|refused|timeout
  outcome HOST PORT        connect, send, read: refused|reset|closed|timeout|data
  ask HOST PORT HEX        connect, send the bytes HEX, read to the end:
                           the answer in hex, then "|eof", "|reset" or
                           "|timeout"
  hold HOST PORT SECS      connect, fill the send buffer, watch TCP_INFO for
                           SECS: "held snd_wnd=N backoff=N acked=N
                           notsent=N" or "died after Ns state=N at T"
  honey HOST PORT BYTES    send BYTES of payload, wait until all is acked,
                           then close: "acked=N snd_wnd=N state=N" (state 5:
                           FIN_WAIT2, our FIN acked) or "unacked=N ..."
  many HOST PORT N         open N connections at once: "established=N"
  converse HOST PORT KIND  talk as a client of KIND does (CONVERSATIONS),
                           read to the end, close, wait until the close
                           is acked: "read=N unacked=N retrans=N state=N
                           err=N" (state 7: closed; err: of the socket)
  window HOST PORT          connect, then reset the connection (nothing
                           left to retransmit): "window N", the window
                           of the peer's SYN/ACK (TARPIT's: 0)|refused|
                           timeout
  idle HOST PORT SECS [COUNT [SRC]]
                           connect (from address SRC), send nothing,
                           keepalive probes every second (COUNT
                           unanswered end it, by default 9): "alive" or
                           "died after Ns state=N at T" (T: time.time())
"""
import errno
import fcntl
import resource
import os
import select
import socket
import ssl
import struct
import sys
import termios
import time

PAYLOAD = b"CHAOSPAYLOAD-"
TCP_ESTABLISHED = 1
TCP_FIN_WAIT2 = 5
TCP_CLOSE = 7


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def tcp_info(s):
    """(state, backoff, bytes_acked, snd_wnd, notsent) from struct tcp_info."""
    b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    state, backoff = b[0], b[4]
    (acked,) = struct.unpack_from("Q", b, 120)
    (notsent,) = struct.unpack_from("I", b, 144)
    (snd_wnd,) = struct.unpack_from("I", b, 228)
    return state, backoff, acked, snd_wnd, notsent


def connect(host, port, timeout=20, src=None):
    # getaddrinfo gives a scoped address (fe80::1%eth0) its scope id.
    addr = socket.getaddrinfo(host, port, family(host), socket.SOCK_STREAM)
    s = socket.socket(family(host), socket.SOCK_STREAM)
    s.settimeout(timeout)
    if src:
        s.bind((src, 0))
    s.connect(addr[0][4])
    return s


def outcome(host, port):
    try:
        s = connect(host, port)
    except ConnectionRefusedError:
        return "refused"
    except ConnectionResetError:
        # Reset right after the handshake, before connect() returned.
        return "reset"
    except socket.timeout:
        return "timeout"
    try:
        s.sendall(b"hello\n")
        data = s.recv(100)
    except (ConnectionResetError, BrokenPipeError):
        return "reset"
    except socket.timeout:
        return "timeout"
    return "data" if data else "closed"


def greeted(host, port):
    try:
        s = connect(host, port)
        data = s.recv(4096)
    except ConnectionRefusedError:
        return "refused"
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        return "timeout"
    s.close()
    return "greeted %d" % len(data) if data else "closed"


def ask(host, port, request):
    data, end = b"", "eof"
    try:
        s = connect(host, port)
        s.sendall(request)
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
    except (ConnectionRefusedError, ConnectionResetError, BrokenPipeError):
        end = "reset"
    except socket.timeout:
        end = "timeout"
    return data.hex() + "|" + end


def connect_only(host, port):
    try:
        connect(host, port).close()
    except ConnectionRefusedError:
        return "refused"
    except ConnectionResetError:
        # A RST to the SYN refuses: this one came after the handshake.
        return "connected, then reset"
    except socket.timeout:
        return "timeout"
    return "connected"


def window(host, port):
    try:
        s = connect(host, port, timeout=10)
    except ConnectionRefusedError:
        return "refused"
    except socket.timeout:
        return "timeout"
    snd_wnd = tcp_info(s)[3]
    # Closed with a RST, not a FIN that a zero window would keep queued.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
    return "window %d" % snd_wnd


def watch(s, secs):
    """None if s stays established for secs, else "died after Ns state=N
    at T" (T the wall clock's seconds since the epoch)."""
    start = time.monotonic()
    while time.monotonic() - start < secs:
        state = tcp_info(s)[0]
        if state != TCP_ESTABLISHED:
            return "died after %.1fs state=%d at %.1f" % (
                time.monotonic() - start, state, time.time())
        time.sleep(0.1)
    return None


def hold(host, port, secs):
    s = connect(host, port)
    s.setblocking(False)
    try:
        while True:
            s.send(PAYLOAD * 1000)
    except BlockingIOError:
        pass
    died = watch(s, secs)
    if died:
        return died
    state, backoff, acked, snd_wnd, notsent = tcp_info(s)
    return "held snd_wnd=%d backoff=%d acked=%d notsent=%d" % (
        snd_wnd, backoff, acked, notsent)


def honey(host, port, nbytes):
    s = connect(host, port)
    data = (PAYLOAD * (nbytes // len(PAYLOAD) + 1))[:nbytes]
    s.sendall(data)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        queued = struct.unpack("i", fcntl.ioctl(s, termios.TIOCOUTQ,
                                                b"\0" * 4))[0]
        if queued == 0:
            break
        time.sleep(0.1)
    state, backoff, acked, snd_wnd, notsent = tcp_info(s)
    if queued:
        return "unacked=%d acked=%d state=%d" % (queued, acked, state)
    # Our FIN acked: FIN_WAIT2.
    s.shutdown(socket.SHUT_WR)
    deadline = time.monotonic() + 10
    while tcp_info(s)[0] != TCP_FIN_WAIT2 and time.monotonic() < deadline:
        time.sleep(0.1)
    return "acked=%d snd_wnd=%d state=%d" % (acked - 1, snd_wnd,
                                             tcp_info(s)[0])


def http_request(size):
    """A GET of size bytes, its length made up by a header."""
    head = b"GET / HTTP/1.1\r\nHost: host\r\nUser-Agent: curl/8.14.1\r\n"
    pad = size - len(head) - len(b"X-Pad: \r\n\r\n")
    return head + b"X-Pad: " + b"a" * pad + b"\r\n\r\n"


def mysql_login():
    """A HandshakeResponse41 as a client library sends it: capabilities,
    utf8mb4, the user, a scramble's answer, the plugin and attributes."""
    attrs = b""
    for k, v in ((b"_client_name", b"libmariadb"), (b"_client_version",
                 b"3.4.5"), (b"_os", b"Linux"), (b"_pid", b"4242"),
                 (b"_platform", b"x86_64"), (b"program_name", b"mysql")):
        attrs += bytes([len(k)]) + k + bytes([len(v)]) + v
    body = (struct.pack("<IIB23x", 0x001FA68D, 1 << 24, 0x2D) + b"root\0" +
            bytes([20]) + os.urandom(20) + b"mysql_native_password\0" +
            bytes([len(attrs)]) + attrs)
    return struct.pack("<I", len(body))[:3] + b"\1" + body


def smtp_pipeline(size):
    """ESMTP pipelining (RFC 2920): commands sent before the greeting."""
    data = b"EHLO client.example.org\r\nMAIL FROM:<a@example.org>\r\n"
    n = 0
    while len(data) < size - 30:
        data += b"RCPT TO:<user%03d@example.org>\r\n" % n
        n += 1
    return (data + b"DATA\r\n")[:size - 2] + b"\r\n"


def ssh_hello():
    """An SSH client's version line, then its KEXINIT, 1,200 bytes."""
    names = b"curve25519-sha256,ecdh-sha2-nistp256,ext-info-c," * 30
    kex = b"\x14" + os.urandom(16) + names
    return [b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u7\r\n",
            struct.pack(">IB", 1196, 4) + kex[:1195]]


def tls_hello(s):
    """Python's ssl's ClientHello on s, then what the server answers
    until it closes, through memory BIOs: "tls=" the handshake's end."""
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    ctx = ssl.create_default_context()
    tls = ctx.wrap_bio(inc, out, server_hostname="host")
    n = 0
    while True:
        try:
            tls.do_handshake()
            return n, "tls=done"
        except ssl.SSLWantReadError:
            pass
        except ssl.SSLError as e:
            return n, "tls=" + e.reason
        s.sendall(out.read())
        data = s.recv(4096)
        if not data:
            inc.write_eof()
        n += len(data)
        inc.write(data)


# What a client of each kind sends: before it reads ("ask", each item a
# write) or after the first data it reads ("answer").
CONVERSATIONS = {
    "http600": {"ask": [http_request(600)]},
    "http1400": {"ask": [http_request(1400)]},
    "tls": {},
    "mysql": {"answer": [mysql_login()]},
    "smtp": {"ask": [smtp_pipeline(400)]},
    "ssh": {"ask": ssh_hello()},
}


def converse(host, port, kind):
    s = connect(host, port, timeout=5)
    talk, read, end = CONVERSATIONS[kind], 0, ""
    try:
        if kind == "tls":
            read, end = tls_hello(s)
        for data in talk.get("ask", []):
            s.sendall(data)
        while True:
            data = s.recv(4096)
            if not data:
                break
            read += len(data)
            for data in talk.get("answer", []):
                s.sendall(data)
            talk = {}
        s.shutdown(socket.SHUT_WR)
    except OSError as e:
        end = "error=%s" % e.__class__.__name__
    # The server acks the FIN (LAST_ACK, then closed), and all before it.
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        b = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
        if b[0] == TCP_CLOSE:
            break
        time.sleep(0.05)
    (unacked,) = struct.unpack_from("I", b, 24)
    (retrans,) = struct.unpack_from("I", b, 100)
    err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    return " ".join(x for x in ("read=%d unacked=%d retrans=%d state=%d "
                                "err=%d" % (read, unacked, retrans, b[0],
                                            err), end) if x)


def many(host, port, n):
    resource.setrlimit(resource.RLIMIT_NOFILE, (n + 64, n + 64))
    pending = {}
    ep = select.epoll()
    for _ in range(n):
        s = socket.socket(family(host), socket.SOCK_STREAM)
        s.setblocking(False)
        err = s.connect_ex((host, port))
        if err not in (0, errno.EINPROGRESS):
            raise OSError(err, "connect")
        pending[s.fileno()] = s
        ep.register(s.fileno(), select.EPOLLOUT)
    done = []
    deadline = time.monotonic() + 120
    while pending and time.monotonic() < deadline:
        for fd, _ in ep.poll(1):
            s = pending.pop(fd)
            ep.unregister(fd)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                done.append(s)
    return "established=%d" % len(done)


def idle(host, port, secs, count=None, src=None):
    s = connect(host, port, src=src)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
    if count:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT, count)
    return watch(s, secs) or "alive"


def main(argv):
    cmd, host, port = argv[1], argv[2], int(argv[3])
    if cmd == "connect":
        print(connect_only(host, port))
    elif cmd == "greeted":
        print(greeted(host, port))
    elif cmd == "outcome":
        print(outcome(host, port))
    elif cmd == "ask":
        print(ask(host, port, bytes.fromhex(argv[4])))
    elif cmd == "hold":
        print(hold(host, port, float(argv[4])))
    elif cmd == "honey":
        print(honey(host, port, int(argv[4])))
    elif cmd == "many":
        print(many(host, port, int(argv[4])))
    elif cmd == "converse":
        print(converse(host, port, argv[4]))
    elif cmd == "window":
        print(window(host, port))
    elif cmd == "idle":
        print(idle(host, port, float(argv[4]),
                   int(argv[5]) if len(argv) > 5 else None,
                   argv[6] if len(argv) > 6 else None))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
