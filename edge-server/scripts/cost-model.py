#!/usr/bin/env python3
"""The per-MiB (per-request) cost model of `BENCH_COST=1 scripts/bench.sh`, from its cost directory.

Per run the bench leaves: runs.txt (tag duration bytes-per-response rps requests user-ticks system-ticks hz
client-cpu-s bytes-read origin-cpu-s), <tag>.stat (perf stat -x, of the server's processes: task-clock and syscall tracepoints) and
<tag>.data (perf record -g, cpu-clock), <tag>.client.data (the same of wrk's process). A tag is
case@conns@server@round. This prints, per case and server,
medians over rounds of CPU per MiB (user, system), system calls per MiB, and where the CPU went (the
categories below, from each sample's kernel call chain or the user-space library it was in), then for each
case the bound: the best edge/nginx throughput ratio any server doing nginx's unavoidable per-byte work
(page-cache copy, socket copy, TCP send, loopback receive, AES-GCM) and nothing else could reach on the
same CPUs as the client (and, for misses, the origin); and, with the client's profile, the same bound for the
whole machine: both sides' least work together, since on one machine work moves between the two ends of the
loopback; last, how much of the edge's own user-space work (code, JVM, libc) 1.25x would need gone, against
a server that is nothing but its system calls and OpenSSL.

Usage: cost-model.py COST_DIR
"""
import collections
import os
import re
import statistics
import subprocess
import sys

# kernel categories: the first rule one of whose functions is in the sample's kernel chain wins
KERNEL_RULES = [
    ("perf", ("perf_syscall_enter", "perf_syscall_exit", "perf_tp_event", "perf_trace_buf_alloc")),
    ("rx", ("net_rx_action", "process_backlog", "__netif_receive_skb", "__netif_receive_skb_core", "tcp_v4_rcv")),
    ("pagecache", ("filemap_read", "filemap_get_pages", "generic_file_read_iter")),
    ("tcpsend", ("tcp_sendmsg", "tcp_sendmsg_locked", "tcp_push", "tcp_write_xmit", "__tcp_transmit_skb",
                 "tcp_sendpage", "splice_to_socket")),
    ("sendfile", ("do_sendfile", "do_splice_direct", "splice_direct_to_actor", "filemap_splice_read")),
    ("tcprecv", ("tcp_recvmsg", "tcp_recvmsg_locked", "sock_recvmsg", "tcp_cleanup_rbuf")),
    ("epoll", ("do_epoll_wait", "ep_poll", "do_epoll_ctl", "ep_send_events", "__x64_sys_epoll_ctl")),
    ("files", ("do_sys_openat2", "path_openat", "vfs_statx", "__x64_sys_close", "filp_close", "__fput",
               "do_filp_open", "__x64_sys_newfstatat", "vfs_fstat")),
    ("sched", ("schedule", "__schedule", "futex_wait", "futex_wake", "do_futex", "do_nanosleep")),
    ("mm", ("exc_page_fault", "handle_mm_fault", "do_madvise", "__x64_sys_munmap", "__x64_sys_mmap")),
]
# TCP's pacing timer armed for the next segment (BBR paces inside TCP when the device has no fq qdisc,
# as loopback has none): hrtimer_start_range_ns tail-calls the unlock of the timer base, so the sample sits
# in _raw_spin_unlock_irqrestore right under tcp_write_xmit. In a VM that is where the timer's
# reprogramming (an exit to the hypervisor) is paid: cpu-clock samples wait for the interrupts to be on
PACING = ("_raw_spin_unlock_irqrestore", "tcp_write_xmit")
# a copy inside tcp_sendmsg (user bytes into the socket's buffer) is counted apart from the rest of TCP
COPY = re.compile(r"copy|memcpy|movs|csum_partial_copy")
LABELS = collections.OrderedDict([
    ("pagecache", "page cache -> user copy (read/pread)"),
    ("sockcopy", "user -> socket buffer copy (in sendmsg/write)"),
    ("pacing", "TCP pacing timer armed (BBR without fq; VM timer exits)"),
    ("tcpsend", "TCP/IP send path (rest)"),
    ("sendfile", "sendfile/splice page handling"),
    ("rx", "loopback receive softirq (client's data and ACKs)"),
    ("aesgcm", "AES-GCM (libcrypto)"),
    ("crypto", "libcrypto other"),
    ("libssl", "TLS record layer (libssl)"),
    ("memcpy", "user-space memcpy (libc; OpenSSL's record buffer)"),
    ("recvcopy", "socket buffer -> user copy (in recvmsg/read)"),
    ("tcprecv", "TCP receive calls (rest)"),
    ("epoll", "epoll"),
    ("files", "open/stat/close"),
    ("sched", "futex/scheduling"),
    ("mm", "page faults, mmap"),
    ("kother", "other kernel (syscall entry/exit, timers)"),
    ("app", "own code (nginx, wrk; Java JIT/interpreter, one-nio JNI)"),
    ("jvm", "JVM runtime (libjvm: GC, JIT compiler, safepoints)"),
    ("libc", "libc"),
    ("other", "other"),
    ("perf", "measurement: perf's syscall tracepoints"),
])
MINIMUM = ("sockcopy", "pacing", "tcpsend", "sendfile", "rx", "aesgcm", "tcprecv", "recvcopy")
# the client's least work per unit: decrypting (AES-GCM), copying the bytes out of its sockets, the
# loopback receive softirq and the TCP send path (requests, ACKs) that run in its context; not its
# receive calls' per-call cost, its epoll, its record layer or its HTTP parsing (those a server could
# in principle make smaller: fewer, larger writes)
CLIENT_MINIMUM = ("aesgcm", "recvcopy", "rx", "sockcopy", "pacing", "tcpsend")
# OpenSSL's work per record beside the cipher (the record layer, libcrypto's per-record parameter handling):
# TLS caps a record at 16 KiB, so every server and client using this OpenSSL seals or opens at least 64 per
# MiB (one per small response)
RECORD = ("libssl", "crypto")
# a server's own user-space work: its code (HTTP, for the edge also one-nio's JNI), its runtime, libc
OWN = ("app", "jvm", "libc", "other")
FRAME = re.compile(r"^\s+([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$")
AES_INSN = re.compile(r"^\s*([0-9a-f]+):.*\s(v?aesenc|v?aesenclast|v?pclmulqdq|vpclmul)")
_aes = {}


def aes_sites(lib):
    """sorted addresses of AES-NI and carry-less multiply instructions in a stripped libcrypto: the AES-GCM
    code (its functions are local symbols, which perf cannot name without debug symbols)"""
    if lib not in _aes:
        try:
            dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], capture_output=True, text=True).stdout
            _aes[lib] = sorted(int(m.group(1), 16) for m in map(AES_INSN.match, dis.splitlines()) if m)
        except OSError:
            _aes[lib] = []
    return _aes[lib]


def is_aes(lib, addr, reach=192):
    import bisect
    sites = aes_sites(lib)
    i = bisect.bisect_left(sites, addr)
    return any(0 <= j < len(sites) and abs(sites[j] - addr) <= reach for j in (i - 1, i))


def classify(frames):
    if not frames:
        return "other"
    addr0, sym0, dso0 = frames[0]
    if "kernel.kallsyms" in dso0:
        kernel = [s.split("+")[0] for _, s, d in frames if "kernel.kallsyms" in d]
        if tuple(kernel[:2]) == PACING:
            return "pacing"
        names = set(kernel)
        for cat, funcs in KERNEL_RULES:
            if names.intersection(funcs):
                if cat == "tcpsend" and any(COPY.search(s) for s in kernel[:4]):
                    return "sockcopy"
                if cat == "tcprecv" and any(COPY.search(s) for s in kernel[:4]):
                    return "recvcopy"
                return cat
        return "kother"
    if "libcrypto" in dso0:
        if re.search(r"aes|gcm|ghash|AES", sym0) or (sym0 == "[unknown]" and is_aes(dso0, int(addr0, 16))):
            return "aesgcm"
        return "crypto"
    if "libssl" in dso0:
        return "libssl"
    if "libjvm" in dso0:
        return "jvm"
    if re.search(r"libc[.-]", dso0):
        return "memcpy" if re.search(r"memcpy|memmove", sym0) else "libc"
    if "nginx" in dso0 or os.path.basename(dso0) == "wrk" or "perf-" in dso0 or "JIT" in dso0 or "libonenio" in dso0 or dso0 == "[unknown]" \
            or "libjava" in dso0 or "libnio" in dso0:
        return "app"
    return "other"


def profile(data, min_samples=1):
    """category -> share of samples; comm -> share of samples (both empty under min_samples samples)"""
    out = subprocess.run(["perf", "script", "-i", data, "-F", "comm,tid,ip,sym,dso"], capture_output=True,
                         text=True, errors="replace").stdout
    cats, comms, total = collections.Counter(), collections.Counter(), 0
    comm, frames = None, []

    def flush():
        nonlocal total
        if comm is not None:
            cats[classify(frames)] += 1
            comms[re.sub(r"[-_ ]?\d+$", "", comm)] += 1
            total += 1

    for line in out.splitlines():
        if not line.strip():
            continue
        m = FRAME.match(line)
        if m:
            frames.append((m.group(1), m.group(2), m.group(3)))
        elif not line[0].isspace():
            flush()
            comm, frames = line.rsplit(None, 1)[0].strip(), []
    flush()
    if total < min_samples:
        return {}, {}
    return {k: v / total for k, v in cats.items()}, {k: v / total for k, v in comms.items()}


def stat(path):
    counts = {}
    for line in open(path):
        parts = line.strip().split(",")
        if len(parts) > 2 and parts[2]:
            try:
                counts[parts[2].split(":")[-1].replace("sys_enter_", "")] = float(parts[0])
            except ValueError:
                pass
    return counts


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else 0.0


def main(d):
    runs = collections.defaultdict(list)  # (case, conns, server) -> [run]
    for line in open(os.path.join(d, "runs.txt")):
        f = line.split()
        if len(f) < 9:
            continue
        tag, duration, size, rps, requests, ut, st, hz, client = f[:9]
        case, conns, server, rnd = tag.split("@")
        size, hz = int(size), int(hz)
        requests = float(requests)
        # MiB read by wrk (a 16 MiB response may not complete within a run at 512 connections), or thousands
        # of requests
        units = (float(f[9]) if len(f) > 9 else requests * size) / 1048576 if size else requests / 1000
        # the origin's CPU over the run (misses: what the origin did for this server), with the client's
        # the rest of the machine
        r = dict(round=rnd, units=units, duration=float(duration), user=int(ut) / hz, sys=int(st) / hz,
                 client=float(client), origin=float(f[10]) if len(f) > 10 else 0.0, size=size)
        sp = os.path.join(d, tag + ".stat")
        r["stat"] = stat(sp) if os.path.exists(sp) else {}
        dp = os.path.join(d, tag + ".data")
        r["cats"], r["comms"] = profile(dp) if os.path.exists(dp) else ({}, {})
        cp = os.path.join(d, tag + ".client.data")
        # a profile that missed wrk's worker threads has a few samples of its main thread: left out
        r["ccats"] = profile(cp, min_samples=100)[0] if os.path.exists(cp) else {}
        runs[(case, int(conns), server)].append(r)

    keys = sorted({(c, n) for c, n, _ in runs}, key=lambda k: (k[0], k[1]))
    print("COST MODEL (medians over rounds; per MiB of bodies, or per 1,000 requests for manifests (unit k-req);")
    print("            CPU from /proc utime/stime of the server's processes over the wrk run; syscalls from perf")
    print("            stat, scaled by that CPU; categories: perf record -g cpu-clock samples, shares of server CPU)")
    hdr = "%-19s %5s %-6s %6s %9s %8s %8s %8s %8s %9s %9s  %s"
    print(hdr % ("case", "conns", "server", "unit", "per-s", "cpu-ms", "user-ms", "sys-ms", "wrk-ms", "origin-ms",
                 "syscalls", "top syscalls per unit"))
    summary = {}
    for case, conns in keys:
        for server in ("edge", "nginx"):
            rs = runs.get((case, conns, server), [])
            if not rs:
                continue
            unit = "k-req" if rs[0]["size"] == 0 else "MiB"
            per_s = med([r["units"] / r["duration"] for r in rs])
            user = med([1000 * r["user"] / r["units"] for r in rs if r["units"]])
            sysm = med([1000 * r["sys"] / r["units"] for r in rs if r["units"]])
            client = med([1000 * r["client"] / r["units"] for r in rs if r["units"]])
            origin = med([1000 * r["origin"] / r["units"] for r in rs if r["units"]])
            # syscalls per unit: perf's counts per task-clock second times /proc CPU seconds per unit
            sc = collections.defaultdict(list)
            for r in rs:
                tc = r["stat"].get("task-clock", 0) / 1000.0  # msec -> s
                if tc <= 0 or not r["units"]:
                    continue
                cpu_per_unit = (r["user"] + r["sys"]) / r["units"]
                for k, v in r["stat"].items():
                    if k != "task-clock":
                        sc[k].append(v / tc * cpu_per_unit)
            scm = {k: med(v) for k, v in sc.items()}
            total_sc = scm.pop("sys_enter", 0.0)
            top = sorted(((v, k) for k, v in scm.items() if v >= 0.5), reverse=True)[:6]
            cats = {c: med([r["cats"].get(c, 0.0) for r in rs]) for c in LABELS}
            profiled = [r for r in rs if r["ccats"]]
            ccats = {c: med([r["ccats"].get(c, 0.0) for r in profiled]) for c in LABELS} if profiled else {}
            comms = collections.Counter()
            for r in rs:
                for k, v in r["comms"].items():
                    comms[k] += v / len(rs)
            summary[(case, conns, server)] = dict(unit=unit, per_s=per_s, cpu=user + sysm, user=user, sys=sysm,
                                                 client=client, origin=origin, sc=total_sc, cats=cats,
                                                 comms=comms, ccats=ccats)
            print(hdr % (case, conns, server, unit, "%.1f" % per_s, "%.2f" % (user + sysm), "%.2f" % user,
                         "%.2f" % sysm, "%.2f" % client, "%.2f" % origin, "%.0f" % total_sc,
                         " ".join("%s %.1f" % (k, v) for v, k in top)))
    print()
    print("WHERE THE SERVER'S CPU GOES (ms per unit; share of the server's samples in brackets)")
    for case, conns in keys:
        pair = [summary.get((case, conns, s)) for s in ("edge", "nginx")]
        if not all(pair):
            continue
        breakdown(case, conns, pair, "cats", "cpu")
        top = ", ".join("%s %.0f%%" % (k, 100 * v) for k, v in pair[0]["comms"].most_common(5))
        print("  edge threads: %s" % top)
    print()
    print("BOUNDS (per unit; S = server CPU less perf's tracepoints; C = wrk's CPU plus the origin's (misses),")
    print("        the mean of its runs against either server (C edge/nginx shows how equal they were); W_same = nginx's CPU less its own")
    print("        user-space code (nginx, libc but memcpy, other): the same system calls, kernel work and crypto")
    print("        with free HTTP; W_min = nginx's AES-GCM, socket copy, TCP send and receive, sendfile, loopback softirq")
    print("        only: no page-cache copy, no record memcpy, no syscall or epoll cost. On a CPU-bound machine")
    print("        shared with the client, a server doing W reaches at most (S_nginx + C) / (W + C) of nginx's")
    print("        throughput, S_nginx / W if the client cost nothing)")
    print("        model: (S_nginx + C_nginx) / (S_edge + C_edge), the ratio the machine's CPU per unit predicts")
    print("        need: the server CPU per unit that 1.25x nginx would allow here, (S_nginx + C) / 1.25 - C;")
    print("        floor: the least AES-GCM + socket copy + TCP send/receive + sendfile + loopback softirq either")
    print("        server was measured to need per unit (the edge writes in larger calls, so its TCP cost can be the")
    print("        lower one); need < floor: no server using the kernel's TCP (and user-space TLS) reaches 1.25x here")
    print("%-19s %5s %7s %7s %7s %9s %7s %7s | %7s %7s | %6s %8s | %7s %7s %s" % (
        "case", "conns", "S_edge", "S_nginx", "C", "C e/n", "W_same", "W_min", "same", "min", "model", "measured",
        "need", "floor", "1.25x"))
    for case, conns in keys:
        e, n = summary.get((case, conns, "edge")), summary.get((case, conns, "nginx"))
        if not e or not n:
            continue
        se = e["cpu"] * (1 - e["cats"].get("perf", 0.0))
        sn = n["cpu"] * (1 - n["cats"].get("perf", 0.0))
        w_same = sn - n["cpu"] * sum(n["cats"].get(c, 0.0) for c in ("app", "jvm", "libc", "other"))
        w_min = n["cpu"] * sum(n["cats"].get(c, 0.0) for c in MINIMUM)
        ce, cn = e["client"] + e["origin"], n["client"] + n["origin"]
        c = (ce + cn) / 2

        def both(w):
            return "%.2f/%.2f" % ((sn + c) / (w + c), sn / w) if w > 0 else "n/a"
        model = (sn + cn) / (se + ce) if se + ce > 0 else 0
        need = (sn + c) / 1.25 - c
        floor = min(p["cpu"] * sum(p["cats"].get(k, 0.0) for k in MINIMUM) for p in (e, n))
        reach = "reached" if e["per_s"] >= 1.25 * n["per_s"] else "out of reach" if need < floor else "open"
        print("%-19s %5d %7.3f %7.3f %7.3f %9s %7.3f %7.3f | %s %s | %5.2fx %7.2fx | %7.3f %7.3f %s" % (
            case, conns, se, sn, c, "%.2f/%.2f" % (ce, cn), w_same, w_min, both(w_same),
            both(w_min), model, e["per_s"] / n["per_s"] if n["per_s"] else 0, need, floor, reach))
    print("(same, min: bound with the client / CPU-only bound)")
    machine(keys, summary)
    own_code(keys, summary)
    balance(d)


def breakdown(case, conns, pair, cats, cpu):
    """one case's CPU per unit by category, against the edge and against nginx: the servers' own (cats, cpu)
    or the client's in the two runs (ccats, client)"""
    print("%s, %d connections (per %s)" % (case, conns, pair[0]["unit"]))
    for c, label in LABELS.items():
        e, n = (p[cats].get(c, 0.0) for p in pair)
        if e < 0.005 and n < 0.005:
            continue
        print("  %-55s edge %7.3f (%4.1f%%)  nginx %7.3f (%4.1f%%)" % (label, e * pair[0][cpu], 100 * e,
                                                                     n * pair[1][cpu], 100 * n))


def machine(keys, summary):
    """the bound without assuming the client's cost is fixed: the whole machine's CPU per unit (server, client,
    origin) against the least work of server and client together"""
    rows = [(c, n) for c, n in keys if summary.get((c, n, "edge"), {}).get("ccats")
            and summary.get((c, n, "nginx"), {}).get("ccats")]
    if not rows:
        return
    print()
    print("WHERE THE CLIENT'S CPU GOES (wrk, perf record -g of its process; ms per unit, share in brackets),")
    print("against the edge and against nginx")
    for case, conns in rows:
        breakdown(case, conns, [summary[(case, conns, s)] for s in ("edge", "nginx")], "ccats", "client")
    print()
    print("THE WHOLE MACHINE (per unit; T = server + client + origin CPU, the work the two CPUs do per unit, so")
    print("        the throughput ratio is about T_nginx / T_edge whichever side of the loopback a cost falls on;")
    print("        F_s = the server floor above, F_c = the least of the client's AES-GCM, socket copy, loopback")
    print("        receive and TCP send work against either server; R = the least OpenSSL work per record beside")
    print("        the cipher (libssl, libcrypto other) of either server plus that of the client against either;")
    print("        best = T_nginx / (F_s + F_c), best+R = T_nginx / (F_s + F_c + R): the ratio a server would reach")
    print("        if neither it nor the client did anything else. best+R < 1.25x: out of reach for any server")
    print("        using this OpenSSL on the kernel's TCP with this client, whatever it does to the client's work;")
    print("        server-only = T_nginx / (F_s + R_s + C): a server doing only its floor and its own records while")
    print("        the client costs what it was measured to (the lesser of its costs against either server);")
    print("        under 1.25x: out of reach unless the server also makes the client cheaper)")
    print("%-19s %5s %7s %7s %7s %7s %7s %6s %6s %7s %11s %s" % (
        "case", "conns", "T_edge", "T_nginx", "F_s", "F_c", "R", "model", "best", "best+R", "server-only", "1.25x"))
    for case, conns in rows:
        e, n = summary[(case, conns, "edge")], summary[(case, conns, "nginx")]
        t_e = e["cpu"] * (1 - e["cats"].get("perf", 0.0)) + e["client"] + e["origin"]
        t_n = n["cpu"] * (1 - n["cats"].get("perf", 0.0)) + n["client"] + n["origin"]
        f_s = min(p["cpu"] * sum(p["cats"].get(k, 0.0) for k in MINIMUM) for p in (e, n))
        f_c = min(p["client"] * sum(p["ccats"].get(k, 0.0) for k in CLIENT_MINIMUM) for p in (e, n))
        rec_s = min(p["cpu"] * sum(p["cats"].get(k, 0.0) for k in RECORD) for p in (e, n))
        rec = rec_s + min(p["client"] * sum(p["ccats"].get(k, 0.0) for k in RECORD) for p in (e, n))
        c_least = min(p["client"] + p["origin"] for p in (e, n))
        alone = t_n / (f_s + rec_s + c_least) if f_s + rec_s + c_least > 0 else 0
        best = t_n / (f_s + f_c) if f_s + f_c > 0 else 0
        best_r = t_n / (f_s + f_c + rec) if f_s + f_c + rec > 0 else 0
        reach = ("reached" if e["per_s"] >= 1.25 * n["per_s"] else "out of reach" if best_r < 1.25
                 else "open; server alone: out of reach" if alone < 1.25 else "open")
        print("%-19s %5d %7.3f %7.3f %7.3f %7.3f %7.3f %5.2fx %5.2fx %6.2fx %10.2fx %s" % (
            case, conns, t_e, t_n, f_s, f_c, rec, t_n / t_e if t_e else 0, best, best_r, alone, reach))


def own_code(keys, summary):
    """how much of the edge's own user-space work (its code, the JVM, libc) 1.25x would take away, against
    a server that does no user-space work at all and, per category, only the kernel and OpenSSL work the
    cheaper of the two servers did (its system calls, epoll and scheduling included)"""
    print()
    print("THE SERVER'S OWN CODE (per unit; own = the edge's user-space work: its code and one-nio's JNI, the")
    print("        JVM, libc; kernel+TLS = per category the less of the two servers' kernel and OpenSSL work,")
    print("        system calls, epoll and scheduling included, with no user-space work: a server that is")
    print("        nothing but its system calls and OpenSSL; no-code = T_nginx / (kernel+TLS + C), C the least")
    print("        client (+ origin) cost; shed = the share of own that 1.25x needs gone, with the kernel, TLS")
    print("        and client work as measured against the edge; no-code < 1.25x: out of reach for any server")
    print("        making these system calls with this OpenSSL and this client)")
    print("%-19s %5s %7s %7s %10s %7s %6s %s" % (
        "case", "conns", "S_edge", "own", "kernel+TLS", "no-code", "shed", "1.25x"))
    for case, conns in keys:
        e, n = summary.get((case, conns, "edge")), summary.get((case, conns, "nginx"))
        if not e or not n or not e["cpu"] or not n["cpu"]:
            continue
        s_e = e["cpu"] * (1 - e["cats"].get("perf", 0.0))
        t_n = n["cpu"] * (1 - n["cats"].get("perf", 0.0)) + n["client"] + n["origin"]
        own = e["cpu"] * sum(e["cats"].get(k, 0.0) for k in OWN)
        kernel_tls = sum(min(p["cpu"] * p["cats"].get(k, 0.0) for p in (e, n))
                         for k in LABELS if k not in OWN and k != "perf")
        c_least = min(p["client"] + p["origin"] for p in (e, n))
        no_code = t_n / (kernel_tls + c_least) if kernel_tls + c_least > 0 else 0
        excess = s_e + e["client"] + e["origin"] - t_n / 1.25  # the machine's work per unit 1.25x needs gone
        shed = excess / own if own > 0 else float("inf")
        reach = ("reached" if e["per_s"] >= 1.25 * n["per_s"] or excess <= 0
                 else "out of reach" if no_code < 1.25
                 else "open: %.0f%% of own" % (100 * shed) if shed <= 1
                 else "open: more than own")
        print("%-19s %5d %7.3f %7.3f %10.3f %6.2fx %6s %s" % (
            case, conns, s_e, own, kernel_tls, no_code,
            "%.0f%%" % (100 * max(shed, 0)) if shed <= 1 else ">100%", reach))


def balance(d):
    """per run: the CPU each busy thread used (selectors, nginx workers) and the connections per epoll instance"""
    print()
    print("BALANCE (per run: CPU seconds of each thread with >= 2% of the process's CPU in the run; mid-run,")
    print("         the sockets each epoll instance watched: one-nio selectors / nginx workers, >= 8 only)")
    for name in sorted(f for f in os.listdir(d) if f.endswith(".balance")):
        before, after, epolls = {}, {}, []
        for line in open(os.path.join(d, name)):
            f = line.split()
            if f[0] in ("before", "after") and len(f) == 4:
                (before if f[0] == "before" else after)[f[1]] = (f[2], int(f[3]))
            elif f[0] == "epoll":
                n = int(f[3].split("=")[1] or 0)
                if n >= 8:
                    epolls.append(n)
        used = {t: (c, v - before.get(t, (c, 0))[1]) for t, (c, v) in after.items()}
        total = sum(v for _, v in used.values()) or 1
        busy = sorted(((v, c) for c, v in used.values() if v >= 0.02 * total), key=lambda x: x[1])
        hz = os.sysconf("SC_CLK_TCK")
        print("%-34s %s | epoll: %s" % (name[:-len(".balance")], " ".join("%s %.2f" % (c, v / hz) for v, c in busy),
                                         " ".join(map(str, epolls))))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: cost-model.py COST_DIR")
    main(sys.argv[1])
