#!/usr/bin/env python3
"""Slow HTTP clients for make tuning-effect (inside the VM): N connections, each asks for PATH once and then reads
RATE bytes per second (in 5 slices), with a small receive buffer, like viewers on slow links. Runs for SECONDS and
prints one line: connections established, still open, and bytes received."""
import argparse
import selectors
import socket
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--host", required=True)
p.add_argument("--port", type=int, required=True)
p.add_argument("--path", required=True)
p.add_argument("-n", type=int, default=200)
p.add_argument("--rate", type=int, default=32768, help="bytes per second per connection")
p.add_argument("--rcvbuf", type=int, default=65536)
p.add_argument("--seconds", type=float, required=True)
a = p.parse_args()

socks = []
for i in range(a.n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, a.rcvbuf)
    s.settimeout(60)
    s.connect((a.host, a.port))
    s.sendall(f"GET {a.path} HTTP/1.1\r\nHost: {a.host}\r\nUser-Agent: slow-clients\r\n\r\n".encode())
    s.setblocking(False)
    socks.append(s)
print(f"{len(socks)} connections open", flush=True)

got = 0
closed = 0
slice_bytes = max(1, a.rate // 5)
end = time.monotonic() + a.seconds
while time.monotonic() < end and closed < len(socks):
    t = time.monotonic()
    for s in socks:
        if s.fileno() < 0:
            continue
        try:
            b = s.recv(slice_bytes)
            if not b:
                s.close()
                closed += 1
            got += len(b)
        except BlockingIOError:
            pass
        except OSError as e:
            print(f"connection error: {e}", file=sys.stderr)
            s.close()
            closed += 1
    time.sleep(max(0.0, 0.2 - (time.monotonic() - t)))
print(f"established {len(socks)}, open {len(socks) - closed}, received {got} bytes", flush=True)
sys.exit(0 if closed == 0 else 1)
