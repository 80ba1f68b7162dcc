#!/usr/bin/env python3
"""First byte on the wire, per server, from a packet capture of the slice-miss rounds (bench.sh).

For every connection to a server port: the time from the client's request (its first data segment)
to the server's first data segment, as the capture (the kernel's transmit timestamps on loopback) saw
them. Unlike curl's time_starttransfer it leaves out the client's own wait for a CPU after the byte
was sent, which on a machine the client shares with both servers is part of what curl reports.

With --origin PORT (the capture must hold the origin's port too) each first byte is split in three,
from the segments between the client's request and the server's first byte:
  ask     client's request -> the server's request to the origin (its first data segment to PORT)
  origin  that request -> the origin's first data segment back on the same connection
  answer  the origin's first data segment -> the server's first data segment to the client
The requests run one at a time (bench.sh), so the origin request a server sends inside a client
request's window is that request's. "origin" is the same work for both servers (one origin); what a
server that cost nothing would reach is nginx's first byte over the edge's origin time ("bound").

usage: first-byte.py CAPTURE NAME=PORT... [--last N] [--origin PORT]
prints one line per server: "NAME q25 q50 q75 n" (ms); with --origin also, per server,
"NAME phases ask ORIGIN answer n" (medians, ms) and a last line "bound X" (see above)
--last N keeps each server's last N connections
"""
import argparse
import bisect
import re
import subprocess
import sys


def quantile(values, f):
    values = sorted(values)
    return values[min(len(values) - 1, int(f * (len(values) - 1) + 0.5))]


def segments(capture):
    """(time, src port, dst port) of every data segment (length > 0), in capture order."""
    out = subprocess.run(["tcpdump", "-r", capture, "-nn", "-tt"], capture_output=True, text=True, check=True).stdout
    line_re = re.compile(r"([\d.]+) IP [\d.]+\.(\d+) > [\d.]+\.(\d+): Flags \[[^\]]*\].*length (\d+)")
    for line in out.splitlines():
        m = line_re.match(line)
        if m and int(m[4]) > 0:
            yield float(m[1]), int(m[2]), int(m[3])


def first_bytes(segs, ports):
    """[(server port, request time, first byte time)] per client connection, in order of the requests."""
    conns, order = {}, []  # (server port, client port) -> [request time, first byte time]
    for t, src, dst in segs:
        if dst in ports:
            key = (dst, src)
            if key not in conns:
                conns[key] = [t, None]
                order.append(key)
        elif src in ports:
            c = conns.get((src, dst))
            if c is not None and c[1] is None:
                c[1] = t
    return [(k[0], conns[k][0], conns[k][1]) for k in order if conns[k][1] is not None]


def phases(segs, t0, t3, origin):
    """(ask, origin, answer) in ms for the request answered between t0 and t3, or None."""
    asked = None  # (time, the server's port on its origin connection)
    for t, src, dst in segs[bisect.bisect_left(segs, (t0,)):]:
        if t > t3:
            break
        if asked is None and dst == origin:
            asked = (t, src)
        elif asked is not None and src == origin and dst == asked[1]:
            return (asked[0] - t0) * 1000, (t - asked[0]) * 1000, (t3 - t) * 1000
    return None


def main(argv):
    parser = argparse.ArgumentParser(description="the first byte on the wire, per server (see the module's doc)")
    parser.add_argument("capture")
    parser.add_argument("servers", nargs="+", metavar="NAME=PORT")
    parser.add_argument("--last", type=int, help="keep each server's last N connections")
    parser.add_argument("--origin", type=int, metavar="PORT", help="split each first byte at the origin's port")
    args = parser.parse_intermixed_args(argv)
    capture, last, origin = args.capture, args.last, args.origin
    ports = {int(p): name for name, p in (a.split("=") for a in args.servers)}
    segs = list(segments(capture))
    requests = first_bytes(segs, ports)
    medians = {}
    for port, name in ports.items():
        mine = [(t0, t3) for p, t0, t3 in requests if p == port]
        if last is not None:
            mine = mine[-last:]
        times = [(t3 - t0) * 1000 for t0, t3 in mine]
        if not times:
            print(f"{name} n/a n/a n/a 0")
            continue
        print(f"{name} {quantile(times, 0.25):.2f} {quantile(times, 0.5):.2f} {quantile(times, 0.75):.2f} {len(times)}")
        if origin is not None:
            split = [p for p in (phases(segs, t0, t3, origin) for t0, t3 in mine) if p is not None]
            if split:
                ask, org, answer = (quantile([p[i] for p in split], 0.5) for i in range(3))
                medians[name] = (quantile(times, 0.5), org)
                print(f"{name} phases {ask:.3f} {org:.3f} {answer:.3f} {len(split)}")
    if origin is not None and "edge" in medians and "nginx" in medians and medians["edge"][1] > 0:
        print(f"bound {medians['nginx'][0] / medians['edge'][1]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
