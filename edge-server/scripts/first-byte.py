#!/usr/bin/env python3
"""First byte on the wire, per server, from a packet capture of the slice-miss rounds (bench.sh).

For every connection to a server port: the time from the client's request (its first data segment)
to the server's first data segment, as the capture (the kernel's transmit timestamps on loopback) saw
them. Unlike curl's time_starttransfer it leaves out the client's own wait for a CPU after the byte
was sent, which on a machine the client shares with both servers is part of what curl reports.

usage: first-byte.py CAPTURE NAME=PORT... [--last N]
prints one line per server: "NAME q25 q50 q75 n" (ms); --last N keeps each server's last N connections
"""
import re
import subprocess
import sys


def main(argv):
    capture, rest = argv[0], argv[1:]
    last = None
    if "--last" in rest:
        i = rest.index("--last")
        last = int(rest[i + 1])
        rest = rest[:i] + rest[i + 2:]
    ports = {int(p): name for name, p in (a.split("=") for a in rest)}
    out = subprocess.run(["tcpdump", "-r", capture, "-nn", "-tt"], capture_output=True, text=True, check=True).stdout
    line_re = re.compile(r"([\d.]+) IP [\d.]+\.(\d+) > [\d.]+\.(\d+): Flags \[[^\]]*\].*length (\d+)")
    conns = {}  # (server port, client port) -> [request time, first byte time]
    order = []
    for line in out.splitlines():
        m = line_re.match(line)
        if not m or int(m[4]) == 0:
            continue
        t, src, dst = float(m[1]), int(m[2]), int(m[3])
        if dst in ports:
            key = (dst, src)
            if key not in conns:
                conns[key] = [t, None]
                order.append(key)
        elif src in ports:
            c = conns.get((src, dst))
            if c is not None and c[1] is None:
                c[1] = t
    for port, name in ports.items():
        times = [(conns[k][1] - conns[k][0]) * 1000 for k in order if k[0] == port and conns[k][1] is not None]
        if last is not None:
            times = times[-last:]
        times.sort()
        n = len(times)
        if n == 0:
            print(f"{name} n/a n/a n/a 0")
            continue
        q = lambda f: times[min(n - 1, int(f * (n - 1) + 0.5))]
        print(f"{name} {q(0.25):.2f} {q(0.5):.2f} {q(0.75):.2f} {n}")


if __name__ == "__main__":
    main(sys.argv[1:])
