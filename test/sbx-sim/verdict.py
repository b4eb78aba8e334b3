"""sbx simulator, verdict: what a sandbox's proxy may reach (README.md,
"Network"): the rules of $SBX_SIM_ROOT/policy and its preset, the
names of SBX_SIM_HOSTS, and the host's loopback, refused whatever the
rules say.  The policy verbs judge the rules alike; the two must agree.

    verdict.py ROOT SANDBOX_NAME HOST:PORT   prints the rules' verdict
"""

import ipaddress
import os
import socket
import sys


# ---------------------------------------------------------------- rules

def norm_host(h):
    """A host as rules compare it: lower case, one trailing dot gone,
    an IPv6 address without its brackets."""
    h = h.strip().lower()
    if h.startswith("[") and h.endswith("]"):
        h = h[1:-1]
    if h.endswith("."):
        h = h[:-1]
    return h


def split_resource(res):
    """(host part, port or None) of a rule's resource."""
    if res.startswith("["):
        end = res.find("]")
        if end < 0:
            return res, None
        host, rest = res[1:end], res[end + 1:]
        if rest.startswith(":") and rest[1:].isdigit():
            return host, int(rest[1:])
        return host, None
    if res.count(":") == 1:
        host, port = res.split(":")
        if port.isdigit():
            return host, int(port)
    return res, None


def as_ip(h):
    try:
        return ipaddress.ip_address(h)
    except ValueError:
        return None


def host_matches(pat, host):
    """Does a resource's host part name this target host?"""
    pat = norm_host(pat)
    if not pat:
        return False
    ip = as_ip(host)
    if "/" in pat:
        try:
            net = ipaddress.ip_network(pat, strict=False)
        except ValueError:
            return False
        return ip is not None and ip.version == net.version and ip in net
    pip = as_ip(pat)
    if pip is not None:
        return ip is not None and ip == pip
    if pat.startswith("**."):
        suffix = pat[2:]
        return host.endswith(suffix) and len(host) > len(suffix)
    if pat.startswith("*."):
        suffix = pat[1:]
        if not host.endswith(suffix):
            return False
        label = host[: -len(suffix)]
        return label != "" and "." not in label
    return host == pat


def read_rules(root):
    rules = []
    try:
        with open(os.path.join(root, "policy", "rules"), encoding="utf-8",
                  errors="replace") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 7:
                    continue
                rules.append(fields)
    except OSError:
        pass
    return rules


def read_preset(root):
    try:
        with open(os.path.join(root, "policy", "global"), encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return ""


def raw_verdict(host, port):
    kind = "ip" if as_ip(host) is not None else "domain"
    return ("no applicable policies for op=(action:net:connect:tcp, "
            "resource=net:%s:%s:%d)" % (kind, host, port))


def decide(root, name, host, port):
    """(decision, rule text, resource or None) for host:port from the
    sandbox called name."""
    allow = None
    for rid, scope, applies, decision, res, _origin, status in read_rules(root):
        if status != "active":
            continue
        if scope == "sandbox":
            if applies != name:
                continue
        elif scope != "global":
            continue
        if decision not in ("allow", "deny"):
            continue
        rhost, rport = split_resource(res)
        if rport is not None and rport != port:
            continue
        if not host_matches(rhost, host):
            continue
        if decision == "deny":
            return "deny", rid, res
        if allow is None:
            allow = (rid, res)
    if allow is not None:
        return "allow", allow[0], allow[1]
    if read_preset(root) == "allow-all":
        return "allow", raw_verdict(host, port), None
    return "deny", raw_verdict(host, port), None


# ---------------------------------------------------------------- names and targets

def read_hosts(sbdir):
    """SBX_SIM_HOSTS as the simulator last wrote it for this sandbox:
    name -> (address, port or None)."""
    m = {}
    try:
        with open(os.path.join(sbdir, "sim-hosts"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return m
    for item in text.replace("\n", ",").split(","):
        if "=" not in item:
            continue
        name, addr = item.split("=", 1)
        name = norm_host(name)
        host, port = split_resource(addr.strip())
        if name:
            m[name] = (norm_host(host), port)
    return m


def on_loopback(host):
    if host == "localhost" or host.endswith(".localhost"):
        return True
    ip = as_ip(host)
    if ip is None:
        return False
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    # 0.0.0.0 and :: reach the host's loopback on Linux
    return ip.is_loopback or ip.is_unspecified


def fmt_target(host, port):
    if ":" in host:
        return "[%s]:%d" % (host, port)
    return "%s:%d" % (host, port)


LOOPBACK_TEXT = "the host's loopback (%s) is never reachable from a sandbox"


def judge(root, sbdir, name, host, port):
    """(decision, rule text, resource, (address, port) to connect to)
    for a request of the sandbox in sbdir, called name."""
    if on_loopback(host):
        return "deny", LOOPBACK_TEXT % fmt_target(host, port), None, None
    decision, rule, res = decide(root, name, host, port)
    if decision == "deny":
        return decision, rule, res, None
    mapped = read_hosts(sbdir).get(host)
    if mapped is not None:
        return decision, rule, res, (mapped[0], mapped[1] or port)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return decision, rule, res, (host, port)
    for info in infos:
        if on_loopback(info[4][0]):
            return "deny", LOOPBACK_TEXT % fmt_target(host, port), None, None
    return decision, rule, res, (infos[0][4][0], port)


def parse_target(hostport, default_port):
    """(host, port) of `host[:port]` or `[v6][:port]`; ValueError if bad."""
    if hostport.startswith("["):
        end = hostport.index("]")
        host, rest = hostport[1:end], hostport[end + 1:]
        port = int(rest[1:]) if rest.startswith(":") else default_port
    elif hostport.count(":") == 1:
        host, p = hostport.split(":")
        port = int(p)
    elif ":" in hostport:
        raise ValueError(hostport)
    else:
        host, port = hostport, default_port
    host = norm_host(host)
    if not host or not 0 < port < 65536 or any(c in host for c in " /\\@"):
        raise ValueError(hostport)
    return host, port


def main():
    """The rules' verdict on one target, as `policy check` judges it
    (the loopback refusal and the names aside): a test compares both."""
    if len(sys.argv) != 4:
        sys.stderr.write("usage: verdict.py ROOT SANDBOX_NAME HOST:PORT\n")
        return 64
    try:
        host, port = parse_target(sys.argv[3], 443)
    except (ValueError, IndexError):
        sys.stderr.write("verdict.py: bad target %s\n" % sys.argv[3])
        return 64
    decision, rule, _res = decide(sys.argv[1], sys.argv[2], host, port)
    print("%s\t%s" % (decision, rule))
    return 0


if __name__ == "__main__":
    sys.exit(main())
