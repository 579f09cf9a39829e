#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TCP clients for the DELUDE/TARPIT VM tests. Each prints one result line.

  connect HOST PORT        connect only: connected[, then reset]|refused|timeout
  greeted HOST PORT        connect, send nothing, read what the peer sends
                           first, close: "greeted N" (its bytes)|closed|
                           reset|refused|timeout
  outcome HOST PORT        connect, send, read: refused|reset|closed|timeout|data
  hold HOST PORT SECS      connect, fill the send buffer, watch TCP_INFO for
                           SECS: "held snd_wnd=N backoff=N acked=N
                           notsent=N" or "died after Ns state=N at T"
  honey HOST PORT BYTES    send BYTES of payload, wait until all is acked,
                           then close: "acked=N snd_wnd=N state=N" (state 5:
                           FIN_WAIT2, our FIN acked) or "unacked=N ..."
  many HOST PORT N         open N connections at once: "established=N"
  idle HOST PORT SECS [COUNT [SRC]]
                           connect (from address SRC), send nothing,
                           keepalive probes every second (COUNT
                           unanswered end it, by default 9): "alive" or
                           "died after Ns state=N at T" (T: time.time())
"""
import errno
import fcntl
import resource
import select
import socket
import struct
import sys
import termios
import time

PAYLOAD = b"CHAOSPAYLOAD-"
TCP_ESTABLISHED = 1
TCP_FIN_WAIT2 = 5


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
    elif cmd == "hold":
        print(hold(host, port, float(argv[4])))
    elif cmd == "honey":
        print(honey(host, port, int(argv[4])))
    elif cmd == "many":
        print(many(host, port, int(argv[4])))
    elif cmd == "idle":
        print(idle(host, port, float(argv[4]),
                   int(argv[5]) if len(argv) > 5 else None,
                   argv[6] if len(argv) > 6 else None))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
