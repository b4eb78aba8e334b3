"""sbx simulator, proxy: one sandbox's forward HTTP proxy (README.md,
"Network").  It runs on the host, listens on a unix socket in the
sandbox's state directory (a socat in the sandbox's network namespace
brings gateway.docker.internal:3128 there), judges every CONNECT and
absolute-URI request (verdict.py: the rules, the names, the host's
loopback), appends one line per decision to the policy log, and puts
the sandbox's registry credential into plain HTTP requests to that
registry.

Run with Debian's /usr/bin/python3, standard library only:
    proxy.py ROOT SANDBOX_DIR SANDBOX_NAME
The credential is read from its file at each request and kept nowhere
else: not in argv, not in the environment, not in any log.
"""

import base64
import os
import socket
import socketserver
import sys
import threading
import time

# verdict.py beside this file (isolated mode puts no directory on the
# path); no bytecode is left in the tree
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from verdict import as_ip, fmt_target, judge, parse_target  # noqa: E402

HEAD_MAX = 64 * 1024
CONNECT_TIMEOUT = 10
IDLE_TIMEOUT = 300

ROOT = ""
SBDIR = ""
NAME = ""


# ---------------------------------------------------------------- the log and the credential

def log_decision(host, port, decision, rule):
    d = os.path.join(ROOT, "policy")
    os.makedirs(d, mode=0o700, exist_ok=True)
    line = "%d\t%s\t%s\t%s\t%s\tforward\n" % (
        int(time.time() * 1000), NAME, fmt_target(host, port), decision,
        rule.replace("\t", " ").replace("\n", " "))
    fd = os.open(os.path.join(d, "log"),
                 os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, line.encode("utf-8", "replace"))
    finally:
        os.close(fd)


def credential(host, port):
    """The Authorization value for this sandbox's registry secret of
    host:port (or host), or None."""
    d = os.path.join(ROOT, "secrets", NAME)
    for key in (fmt_target(host, port), host):
        try:
            with open(os.path.join(d, key), "rb") as f:
                lines = f.read().split(b"\n")
        except OSError:
            continue
        if len(lines) < 2:
            return None
        token = base64.b64encode(lines[0] + b":" + lines[1]).decode("ascii")
        return "Basic " + token
    return None


# ---------------------------------------------------------------- the proxy

def pump(src, dst):
    try:
        while True:
            b = src.recv(65536)
            if not b:
                break
            dst.sendall(b)
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def read_head(sock, buf=b""):
    """(head bytes without the blank line, what came after it)."""
    while b"\r\n\r\n" not in buf:
        if len(buf) > HEAD_MAX:
            raise ValueError("head too long")
        b = sock.recv(65536)
        if not b:
            raise EOFError
        buf += b
    head, rest = buf.split(b"\r\n\r\n", 1)
    return head, rest


def answer(sock, status, reason, body):
    data = body.encode("utf-8")
    sock.sendall(("HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                  "Content-Length: %d\r\nConnection: close\r\n\r\n"
                  % (status, reason, len(data))).encode("ascii") + data)


def blocked_text(host, port, rule, res):
    kind = "ip" if as_ip(host) is not None else "domain"
    what = "rule %s (%s)" % (rule, res) if res else rule
    return "Blocked by network policy: %s %s: %s\n" % (
        kind, fmt_target(host, port), what)


def dial(addr):
    return socket.create_connection(addr, timeout=CONNECT_TIMEOUT)


def relay_body(client, upstream, headers, rest):
    """Send the request body that follows the head (Content-Length or
    chunked), then nothing more: one request per connection."""
    te = headers.get("transfer-encoding", "").lower()
    if "chunked" in te:
        buf = rest
        while True:
            while b"\r\n" not in buf:
                b = client.recv(65536)
                if not b:
                    raise EOFError
                buf += b
            line, buf = buf.split(b"\r\n", 1)
            size = int(line.split(b";")[0].strip() or b"0", 16)
            upstream.sendall(line + b"\r\n")
            need = size + 2 if size else 0
            while len(buf) < need:
                b = client.recv(65536)
                if not b:
                    raise EOFError
                buf += b
            upstream.sendall(buf[:need])
            buf = buf[need:]
            if size == 0:
                # trailers up to the blank line
                while b"\r\n\r\n" not in b"\r\n" + buf:
                    b = client.recv(65536)
                    if not b:
                        raise EOFError
                    buf += b
                upstream.sendall(buf)
                return
    n = int(headers.get("content-length", "0") or "0")
    upstream.sendall(rest[:n])
    n -= len(rest[:n])
    while n > 0:
        b = client.recv(min(n, 65536))
        if not b:
            raise EOFError
        upstream.sendall(b)
        n -= len(b)


class Handler(socketserver.BaseRequestHandler):

    def handle(self):
        c = self.request
        c.settimeout(IDLE_TIMEOUT)
        try:
            head, rest = read_head(c)
        except (OSError, ValueError, EOFError):
            return
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            answer(c, 400, "Bad Request", "bad request line\n")
            return
        method, target, version = parts
        if method == "CONNECT":
            self.connect(c, target, rest)
        else:
            self.forward(c, method, target, version, lines[1:], rest)

    def gate(self, c, hostport, default_port, tunnel):
        """(host, port, upstream socket) of an allowed target, judged and
        logged; None when it is refused, answered (403, 502) or, for a
        denied tunnel, closed with no answer."""
        try:
            host, port = parse_target(hostport, default_port)
        except (ValueError, IndexError):
            answer(c, 400, "Bad Request", "bad target\n")
            return None
        decision, rule, res, addr = judge(ROOT, SBDIR, NAME, host, port)
        log_decision(host, port, decision, rule)
        if decision != "allow":
            if not tunnel:
                answer(c, 403, "Forbidden", blocked_text(host, port, rule, res))
            return None
        try:
            u = dial(addr)
        except OSError as e:
            answer(c, 502, "Bad Gateway", "cannot reach %s: %s\n"
                   % (fmt_target(host, port), e.strerror or e))
            return None
        u.settimeout(IDLE_TIMEOUT)
        return host, port, u

    def connect(self, c, target, rest):
        g = self.gate(c, target, 443, True)
        if g is None:
            return
        u = g[2]
        c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if rest:
            u.sendall(rest)
        t = threading.Thread(target=pump, args=(u, c), daemon=True)
        t.start()
        pump(c, u)
        t.join()
        u.close()

    def forward(self, c, method, target, version, hlines, rest):
        if not target.lower().startswith("http://"):
            answer(c, 400, "Bad Request",
                   "only absolute http:// requests and CONNECT are proxied\n")
            return
        hp = target[7:]
        slash = hp.find("/")
        path = "/"
        if slash >= 0:
            hp, path = hp[:slash], hp[slash:]
        if "@" in hp:
            hp = hp.rsplit("@", 1)[1]
        g = self.gate(c, hp, 80, False)
        if g is None:
            return
        host, port, u = g
        headers = {}
        out = ["%s %s %s" % (method, path, version)]
        have_host = False
        for h in hlines:
            if ":" not in h:
                continue
            k, v = h.split(":", 1)
            lk = k.strip().lower()
            headers[lk] = v.strip()
            if lk in ("proxy-connection", "proxy-authorization",
                      "connection", "keep-alive", "authorization"):
                continue
            if lk == "host":
                have_host = True
            out.append(h)
        if not have_host:
            out.append("Host: %s" % hp)
        auth = credential(host, port)
        if auth is None and "authorization" in headers:
            out.append("Authorization: %s" % headers["authorization"])
        elif auth is not None:
            out.append("Authorization: " + auth)
        out.append("Connection: close")
        auth = None
        try:
            u.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
            out = None
            relay_body(c, u, headers, rest)
            rhead, rrest = read_head(u)
            rl = rhead.decode("latin-1").split("\r\n")
            keep = [x for x in rl if not x.lower().startswith(
                ("connection:", "keep-alive:", "proxy-connection:"))]
            keep.append("Connection: close")
            c.sendall(("\r\n".join(keep) + "\r\n\r\n").encode("latin-1") + rrest)
            pump(u, c)
        except (OSError, ValueError, EOFError):
            pass
        finally:
            u.close()


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def watch(server):
    """End with the sandbox: when its state directory or socket goes."""
    sock = os.path.join(SBDIR, "proxy.sock")
    while True:
        time.sleep(1)
        if not os.path.isdir(SBDIR) or os.path.exists(os.path.join(SBDIR, "removing")) \
                or not os.path.exists(sock):
            os._exit(0)


def main():
    global ROOT, SBDIR, NAME
    if len(sys.argv) != 4:
        sys.stderr.write("usage: proxy.py ROOT SANDBOX_DIR NAME\n")
        return 64
    ROOT, SBDIR, NAME = sys.argv[1:4]
    sock = os.path.join(SBDIR, "proxy.sock")
    tmp = sock + ".new"
    try:
        os.unlink(tmp)
    except OSError:
        pass
    old = os.umask(0o077)
    server = Server(tmp, Handler)
    os.umask(old)
    os.rename(tmp, sock)
    threading.Thread(target=watch, args=(server,), daemon=True).start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
