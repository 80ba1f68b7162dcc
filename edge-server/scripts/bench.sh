#!/usr/bin/env bash
# make bench: the edge server and nginx (Debian package, sendfile on) side by side on loopback, same
# files, same certificate, same TLS 1.3 cipher suite, driven by wrk in alternating rounds; plus the
# loopback ceiling (a raw sendfile TCP copy between two processes). Prints medians and ratios.
# A benchmark, not a test: slow results never fail anything.
#   BENCH_DURATION (s, per wrk run)  BENCH_ROUNDS  BENCH_CONNS ("64 512")  BENCH_THREADS (wrk)  BENCH_CASES
#   BENCH_WARMUP (s, 3): wrk against both servers before the rounds; BENCH_MISS_WARMUP (s, 60): the same for
#   a scripted (miss) case, just before its own rounds: code run once per fill reaches C2 only after
#   thousands of fills (at ~350 misses/s, 20 s still left C2 compiling in the measured runs)
#   BENCH_EDGE_JVM: more JVM options for both edge instances (e.g. a profiler's -agentpath; use %p in file names), after the pod's flags
#   BENCH_ACCESS_LOG=1: both servers write an access log to a file under logs/ (default: both off)
#   BENCH_SLICE=0: skip the slice-miss case (the first 2 MiB of a 1 GiB object on a cold cache: edge
#   cache.slice=4m, a second edge instance, against nginx slice 4m + proxy_cache), BENCH_SLICE_ROUNDS (31),
#   BENCH_SLICE_WARMUP (1000): cold requests to each server before the measured ones, not counted (4 GiB
#   of slices, so both caches are full and evicting during the rounds), then BENCH_SLICE_JIT_WARMUP (10000)
#   more over one keep-alive connection each: the second edge serves nothing else, its miss path runs
#   once per request, and C2 compiles it only after 5,000-9,000 (the bench prints the tiers it reached);
#   every measured request's first byte and total go to
#   logs/slice-requests.tsv, and the quartiles are printed (curl's first byte has a slow group on a
#   2-vCPU machine, its own wait for a CPU: see PERFORMANCE.md);
#   BENCH_SLICE_OVERRIDES: more config overrides for the slicing edge (e.g. cache.disk.size=8g);
#   as root with tcpdump (DEPS_SET=all), the measured rounds are captured (logs/slice.pcap) and the first
#   byte is also given as it left each server (scripts/first-byte.py): curl's includes its own wait for a CPU;
#   the capture holds the origin's port too, and each first byte is split in three (--origin: ask, origin,
#   answer) with a bound: what a server whose own work cost nothing would reach against nginx
#   BENCH_QUICK=1: a ~3-minute check (3 rounds of 3 s, 64 connections, five cases, no slice case);
#   any BENCH_* set explicitly still wins
#   BENCH_COST=1 (root, perf): the cost model: every server run also counts the server's system calls
#   (perf stat, syscall tracepoints) and samples where its CPU and wrk's go (perf record -g, cpu-clock at
#   BENCH_COST_FREQ Hz, 499); scripts/cost-model.py prints per-MiB (per-request) costs at the end
#   BENCH_NETNS=1 (default as root): run everything in a private network namespace whose TCP settings
#   both servers share: net.ipv4.tcp_notsent_lowat=BENCH_NOTSENT_LOWAT (524288), as node tuning sets it
#   on edge nodes. nginx has no per-socket notsent_lowat directive; the sysctl gives it the same as the
#   edge's acceptor setting, and keeps other processes on this machine out of the loopback.
#   BENCH_CC (bbr, node tuning's default): the namespace's TCP congestion control, one of the host's
#   net.ipv4.tcp_allowed_congestion_control (e.g. BENCH_CC=reno: no pacing; see the cost model in PERFORMANCE.md)
#   BENCH_ORIGIN_CC (cubic): the origin's, at its own address 127.0.0.2 (scripts/netns.sh says why)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${BENCH_NETNS:-1}" = 1 ] && [ -z "${BENCH_IN_NETNS:-}" ] && [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null; then
  exec env BENCH_IN_NETNS=1 unshare --net "$0" "$@"
fi
origin_addr=127.0.0.1
if [ -n "${BENCH_IN_NETNS:-}" ]; then
  . "$here/netns.sh"
  bench_netns_setup bench
  origin_addr=$bench_origin_addr netinfo=$bench_netinfo
else
  netinfo="host netns, tcp_notsent_lowat=$(sysctl -n net.ipv4.tcp_notsent_lowat) (edge sets 512k on its sockets, nginx cannot), congestion control $(sysctl -n net.ipv4.tcp_congestion_control)"
fi
module=$(dirname "$here")
. "$here/jvm-flags.sh"
: "${JAVA_HOME:?set JAVA_HOME (the Makefile does)}"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
  : "${BENCH_DURATION:=3}" "${BENCH_ROUNDS:=3}" "${BENCH_CONNS:=64}" "${BENCH_WARMUP:=1}" "${BENCH_SLICE:=0}"
  : "${BENCH_CASES:=seg-2m-http|/bench/seg-2m.m4s|http|2097152
seg-2m-https|/bench/seg-2m.m4s|https|2097152
manifest-1k-http|/bench/manifest-1k.m3u8|http|0
manifest-1k-https|/bench/manifest-1k.m3u8|https|0
cache-mem-2m-https|/cached/bench/seg-2m.m4s|https|2097152}"
fi
duration=${BENCH_DURATION:-8}
rounds=${BENCH_ROUNDS:-3}
conns_list=${BENCH_CONNS:-64 512}
threads=${BENCH_THREADS:-$(nproc)}
cpus=$(nproc)
dir=${BENCH_DIR:-$module/target/bench}
classpath="$module/target/classes:$module/target/lib/*"
edge_http=28080 edge_https=28443 edge_admin=29400 nginx_http=28081 nginx_https=28444 loop_port=28999 origin_port=28090
slice_http=28082 slice_https=28445 slice_admin=29401
cipher_suite=TLS_AES_128_GCM_SHA256

for tool in wrk nginx openssl gcc curl; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found (DEPS_SET=all make deps)" >&2; exit 1; }
done
mkdir -p "$dir/logs" "$dir/nginx" "$dir/origin"
if [ "${BENCH_COST:-0}" = 1 ]; then
  command -v perf >/dev/null || { echo "bench: BENCH_COST=1 needs perf" >&2; exit 1; }
  rm -rf "$dir/cost"; mkdir -p "$dir/cost"
fi
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# ---- content, certificate, loopback probe ----
if [ ! -f "$dir/content/bench/seg-16m.m4s" ]; then
  "$JAVA_HOME/bin/java" -cp "$classpath" io.videoedge.server.sample.SampleContent "$dir/content" --bench >/dev/null
fi
if [ ! -f "$dir/tls.crt" ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$dir/tls.key" -out "$dir/tls.crt" 2>/dev/null
fi
gcc -O2 -pthread -o "$dir/loopback" "$here/loopback.c"

# ---- edge server ----
# the golden rendering (what the operator renders for examples/videoedge.yaml) made local, with an origin
{
  "$JAVA_HOME/bin/java" -cp "$classpath" io.videoedge.server.config.ConfigOverrides "$module/../testdata/edge-server/edge-server.yaml" \
    'acceptors[].address=127.0.0.1' "acceptors[0].port=$edge_http" "acceptors[1].port=$edge_https" 'acceptors[].backlog=4096' \
    "acceptors[1].ssl.ciphersuites=$cipher_suite" acceptors[1].ssl.ciphers=ECDHE-ECDSA-AES128-GCM-SHA256 \
    "acceptors[1].ssl.certFile=$dir/tls.crt" "acceptors[1].ssl.privateKeyFile=$dir/tls.key" "acceptors[1].ssl.ticketDir=$dir/tickets" \
    ticketKeys.source= ticketKeys.rotation=1h \
    admin.address=127.0.0.1 "admin.port=$edge_admin" "content.root=$dir/content" \
    "origin.url=http://$origin_addr:$origin_port" origin.maxConnections=64 \
    cache.memory=256m "cache.disk.path=$dir/edge-cache" cache.disk.size=1g bufferPool.size=64m drainTimeout=1s \
    "$([ "${BENCH_ACCESS_LOG:-0}" = 1 ] && echo "accessLog.path=$dir/logs/edge-access.log" || echo accessLog.enabled=false)"
  printf '%s\n' "${BENCH_EDGE_EXTRA:-}"
} >"$dir/edge-server.yaml"
# shellcheck disable=SC2046,SC2086
rm -rf "$dir/edge-cache" "$dir/nginx/cache"
EDGE_MAX_DIRECT=${EDGE_MAX_DIRECT:-96m} "$JAVA_HOME/bin/java" $(EDGE_MAX_DIRECT=${EDGE_MAX_DIRECT:-96m} edge_jvm_flags) ${BENCH_EDGE_JVM:-} -cp "$classpath" io.videoedge.server.EdgeServerMain --config "$dir/edge-server.yaml" \
  > "$dir/logs/edge.log" 2>&1 &
edge_pid=$!
pids+=($edge_pid)

# a second edge with slice caching, for the slice-miss case only (the other cases keep whole-object fills)
if [ "${BENCH_SLICE:-1}" = 1 ]; then
  [ -f "$dir/content/bench/big-1g.mp4" ] || truncate -s 1g "$dir/content/bench/big-1g.mp4" # sparse
  "$JAVA_HOME/bin/java" -cp "$classpath" io.videoedge.server.config.ConfigOverrides "$dir/edge-server.yaml" \
    "acceptors[0].port=$slice_http" "acceptors[1].port=$slice_https" "admin.port=$slice_admin" \
    "acceptors[1].ssl.ticketDir=$dir/tickets-slice" "cache.disk.path=$dir/edge-slice-cache" cache.slice=4m \
    accessLog.enabled=false ${BENCH_SLICE_OVERRIDES:-} > "$dir/edge-slice.yaml"
  rm -rf "$dir/edge-slice-cache"
  # shellcheck disable=SC2046,SC2086
  EDGE_MAX_DIRECT=${EDGE_MAX_DIRECT:-96m} "$JAVA_HOME/bin/java" $(EDGE_MAX_DIRECT=${EDGE_MAX_DIRECT:-96m} edge_jvm_flags) ${BENCH_EDGE_JVM:-} -cp "$classpath" io.videoedge.server.EdgeServerMain --config "$dir/edge-slice.yaml" \
    > "$dir/logs/edge-slice.log" 2>&1 &
  slice_pid=$!
  pids+=($slice_pid)
fi

# ---- nginx, tuned as one would in production ----
cat > "$dir/nginx/nginx.conf" <<NGINX
worker_processes $cpus;
worker_cpu_affinity auto;
daemon off;
pid $dir/nginx/nginx.pid;
error_log $dir/logs/nginx-error.log warn;
events { worker_connections 8192; use epoll; }
http {
  types { video/mp4 mp4; video/iso.segment m4s; application/vnd.apple.mpegurl m3u8; application/dash+xml mpd; video/mp2t ts; text/vtt vtt; }
  default_type application/octet-stream;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_timeout 120s; keepalive_requests 1000000;
  $([ "${BENCH_ACCESS_LOG:-0}" = 1 ] && echo "access_log $dir/logs/nginx-access.log;" || echo "access_log off;")
  open_file_cache max=1000 inactive=60s;
  client_body_temp_path $dir/nginx/body; proxy_temp_path $dir/nginx/proxy; fastcgi_temp_path $dir/nginx/fastcgi;
  uwsgi_temp_path $dir/nginx/uwsgi; scgi_temp_path $dir/nginx/scgi;
  ssl_certificate $dir/tls.crt; ssl_certificate_key $dir/tls.key;
  ssl_protocols TLSv1.2 TLSv1.3; ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;
  ssl_conf_command Ciphersuites $cipher_suite;
  ssl_session_tickets on;
  upstream origin { server $origin_addr:$origin_port; keepalive 64; }
  proxy_cache_path $dir/nginx/cache levels=1:2 keys_zone=edge:64m max_size=1g inactive=1h use_temp_path=off;
  server {
    listen 127.0.0.1:$nginx_http reuseport backlog=4096 sndbuf=4m rcvbuf=64k;
    listen 127.0.0.1:$nginx_https ssl reuseport backlog=4096 sndbuf=4m rcvbuf=64k;
    root $dir/content;
    location ~ ^/(cached|miss)/ {
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache edge;
      proxy_cache_valid 200 10m;
      proxy_cache_lock on;
      add_header X-Cache \$upstream_cache_status;
    }
    # the slice-miss baseline: nginx's slice module (built into Debian's nginx-light) with proxy_cache
    location /slice/ {
      slice 4m;
      proxy_pass http://origin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Range \$slice_range;
      proxy_cache edge;
      proxy_cache_key \$uri\$is_args\$args\$slice_range;
      proxy_cache_valid 200 206 10m;
      proxy_cache_lock on;
      add_header X-Cache \$upstream_cache_status;
    }
  }
${BENCH_NGINX_EXTRA:-}
}
NGINX
nginx -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -e "$dir/logs/nginx-error.log" &
nginx_pid=$!
pids+=($nginx_pid)

# the origin for both caches, a process of its own (its CPU is neither server's: the cost model counts it
# with the client's): /cached/x and /miss/<id>/x are the bench files
cat > "$dir/origin/nginx.conf" <<NGINX
worker_processes $cpus;
daemon off;
pid $dir/origin/nginx.pid;
error_log $dir/logs/origin-error.log warn;
events { worker_connections 8192; use epoll; }
http {
  default_type application/octet-stream;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_timeout 120s; keepalive_requests 1000000;
  access_log off;
  client_body_temp_path $dir/origin/body; proxy_temp_path $dir/origin/proxy; fastcgi_temp_path $dir/origin/fastcgi;
  uwsgi_temp_path $dir/origin/uwsgi; scgi_temp_path $dir/origin/scgi;
  server {
    listen $origin_addr:$origin_port reuseport backlog=4096;
    root $dir/content;
    rewrite ^/cached/(.*)\$ /\$1 break;
    rewrite ^/miss/[^/]+/(.*)\$ /bench/\$1 break;
    rewrite ^/slice/[^/]+/(.*)\$ /bench/\$1 break;
  }
}
NGINX
nginx -p "$dir/origin" -c "$dir/origin/nginx.conf" -e "$dir/logs/origin-error.log" &
origin_pid=$!
pids+=($origin_pid)

# ceiling probes: the same bytes the large-object cases send (2 MiB and 16 MiB files)
"$dir/loopback" serve $loop_port "$dir/content/bench/seg-2m.m4s" "$cpus" &
pids+=($!)
"$dir/loopback" serve $((loop_port - 1)) "$dir/content/bench/seg-16m.m4s" "$cpus" &
pids+=($!)
probe_port() { if [ "$1" -ge 16777216 ]; then echo $((loop_port - 1)); else echo $loop_port; fi; }

for i in $(seq 1 300); do
  curl -fs -o /dev/null "http://127.0.0.1:$edge_admin/readyz" && curl -fs -o /dev/null "http://127.0.0.1:$nginx_http/index.m3u8" \
    && curl -fs -o /dev/null "http://$origin_addr:$origin_port/index.m3u8" && break
  [ "$i" = 300 ] && { echo "bench: servers did not come up; see $dir/logs" >&2; exit 1; }
  sleep 0.2
done

# same bytes from both, and the negotiated TLS parameters
for path in bench/seg-2m.m4s bench/seg-16m.m4s bench/manifest-1k.m3u8; do
  a=$(curl -fs --cacert "$dir/tls.crt" "https://localhost:$edge_https/$path" | sha256sum)
  b=$(curl -fs --cacert "$dir/tls.crt" "https://localhost:$nginx_https/$path" | sha256sum)
  [ "$a" = "$b" ] || { echo "bench: $path differs between edge and nginx" >&2; exit 1; }
done
tls_of() { openssl s_client -connect "127.0.0.1:$1" -servername localhost </dev/null 2>/dev/null | grep -E '^(New|Reused),' | head -1; }
echo "edge  TLS: $(tls_of $edge_https)"
echo "nginx TLS: $(tls_of $nginx_https)"
echo "edge  native library: $(curl -s "http://127.0.0.1:$edge_admin/metrics" | grep '^videoedge_native_library_info' | sed 's/.*origin="\([^"]*\)".*/\1/'), kTLS: $(curl -s "http://127.0.0.1:$edge_admin/metrics" | grep '^videoedge_ktls_info' | sed 's/.*kernel="\([^"]*\)".*/kernel \1/')"
echo "network: $netinfo"
echo "machine: $cpus CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), kernel $(uname -r); wrk -t$threads, ${duration}s per run, $rounds rounds, alternating"
echo

# ---- wrk rounds ----
# name|path|scheme|bytes per response (0: report requests/s)
default_cases="seg-2m-http|/bench/seg-2m.m4s|http|2097152
seg-2m-https|/bench/seg-2m.m4s|https|2097152
seg-16m-http|/bench/seg-16m.m4s|http|16777216
seg-16m-https|/bench/seg-16m.m4s|https|16777216
manifest-1k-http|/bench/manifest-1k.m3u8|http|0
manifest-1k-https|/bench/manifest-1k.m3u8|https|0
cache-mem-1k-http|/cached/bench/manifest-1k.m3u8|http|0
cache-mem-2m-http|/cached/bench/seg-2m.m4s|http|2097152
cache-mem-2m-https|/cached/bench/seg-2m.m4s|https|2097152
cache-disk-16m-http|/cached/bench/seg-16m.m4s|http|16777216
cache-miss-2m-http|/|http|2097152|$here/miss.lua"
cases=${BENCH_CASES:-$default_cases}

url_of() { # server scheme path
  local port
  case "$1-$2" in
    edge-http) port=$edge_http ;; edge-https) port=$edge_https ;; nginx-http) port=$nginx_http ;; nginx-https) port=$nginx_https ;;
  esac
  if [ "$2" = https ]; then echo "https://localhost:$port$3"; else echo "http://127.0.0.1:$port$3"; fi
}

# CPU ticks (user+system) used so far by a process and its children processes (nginx workers)
cpu_ticks() {
  local total=0 p
  for p in "$1" $(pgrep -P "$1" || true); do
    total=$(( total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0) ))
  done
  echo "$total"
}
hz=$(getconf CLK_TCK)
# user and system CPU ticks separately (same processes as cpu_ticks)
cpu_split() {
  local u=0 k=0 p
  for p in "$1" $(pgrep -P "$1" || true); do
    read -r a b < <(awk '{print $14, $15}' "/proc/$p/stat" 2>/dev/null || echo "0 0")
    u=$((u + a)) k=$((k + b))
  done
  echo "$u $k"
}
thread_ticks() { # pid label -> "label tid comm ticks" per thread of the process and its children
  local p t
  for p in "$1" $(pgrep -P "$1" || true); do
    for t in /proc/"$p"/task/*; do echo "$2 ${t##*/} $(tr ' ' _ < "$t/comm") $(awk '{print $14 + $15}' "$t/stat" 2>/dev/null)"; done
  done
}
# the processes that serve: the JVM (every thread), nginx's workers
server_pids() { local c; c=$(pgrep -P "$1" | paste -sd, -); echo "${c:-$1}"; }
cost_syscalls="read pread64 write writev sendfile64 sendto sendmsg recvfrom recvmsg epoll_wait epoll_pwait epoll_ctl
  accept4 openat close newfstatat statx futex setsockopt ioctl mmap munmap madvise sched_yield splice readv preadv"
cost_events="task-clock,raw_syscalls:sys_enter$(for s in $cost_syscalls; do printf ',syscalls:sys_enter_%s' "$s"; done)"
cost_tag=""

run_wrk() { # url conns bytes-per-response server-pid [lua script] -> "value errors cpu-seconds client-cpu-seconds"
  local out before after script=() client
  [ -n "${5:-}" ] && script=(-s "$5")
  before=$(cpu_ticks "$4")
  local origin_before origin_cpu
  origin_before=$(cpu_ticks "$origin_pid")
  local cost_pids=() split_before
  if [ "${BENCH_COST:-0}" = 1 ] && [ -n "$cost_tag" ]; then
    split_before=$(cpu_split "$4")
    perf stat -x, -e "$cost_events" -p "$(server_pids "$4")" -o "$dir/cost/$cost_tag.stat" 2>/dev/null &
    cost_pids+=($!)
    # the selector balance: CPU ticks per thread before and after the run, and mid-run the connections
    # each epoll instance (a one-nio selector, an nginx worker) watches
    thread_ticks "$4" before > "$dir/cost/$cost_tag.balance"
    ( sleep $(( duration / 2 )); for p in ${4} $(pgrep -P "$4" || true); do
        for fd in /proc/"$p"/fd/*; do
          [ "$(readlink "$fd" 2>/dev/null)" = "anon_inode:[eventpoll]" ] || continue
          echo "epoll pid=$p fd=${fd##*/} watched=$(grep -c '^tfd:' "/proc/$p/fdinfo/${fd##*/}" 2>/dev/null)"
        done
      done >> "$dir/cost/$cost_tag.balance" ) &
    cost_pids+=($!)
    perf record -q -F "${BENCH_COST_FREQ:-499}" -e cpu-clock -g -p "$(server_pids "$4")" -o "$dir/cost/$cost_tag.data" >/dev/null 2>&1 &
    cost_pids+=($!)
    # and the client's: on one machine work moves between the two sides of the loopback (who runs the
    # receive softirq, who wakes whom), so the model bounds the whole machine's CPU per unit too
    # (attached once wrk's threads exist: perf -p follows only the threads there are when it attaches)
    ( for _ in $(seq 1 150); do
        c=$(pgrep -n -x wrk) && [ "$(ls "/proc/$c/task" 2>/dev/null | wc -l)" -gt "$threads" ] && break
        c=""; sleep 0.02
      done
      [ -n "$c" ] && exec perf record -q -F "${BENCH_COST_FREQ:-499}" -e cpu-clock -g -p "$c" \
        -o "$dir/cost/$cost_tag.client.data" >/dev/null 2>&1 ) &
    cost_pids+=($!)
  fi
  # wrk's own user+system time (bash's time keyword): the share of the machine the client took
  out=$( { TIMEFORMAT='%U %S'; time wrk -t"$threads" -c"$2" -d"${duration}s" --timeout 60s "${script[@]}" "$1" 2>&1; } 2>"$dir/logs/wrk.time")
  after=$(cpu_ticks "$4")
  origin_cpu=$(awk -v t=$(( $(cpu_ticks "$origin_pid") - origin_before )) -v hz="$hz" 'BEGIN {printf "%.3f", t/hz}')
  client=$(awk '{printf "%.3f", $1 + $2}' "$dir/logs/wrk.time")
  if [ ${#cost_pids[@]} -gt 0 ]; then
    kill -INT "${cost_pids[@]:0:1}" "${cost_pids[@]:2}" 2>/dev/null || true
    wait "${cost_pids[@]}" 2>/dev/null || true
    thread_ticks "$4" after >> "$dir/cost/$cost_tag.balance"
    # tag duration bytes-per-response requests/s requests user-ticks system-ticks hz client-cpu-s bytes-read
    # origin-cpu-s
    echo "$cost_tag $duration $3 $(echo "$out" | awk '/^Requests\/sec:/ {print $2}') $(echo "$out" | awk '/requests in/ {print $1}') \
$(paste -d' ' <(echo "$split_before") <(cpu_split "$4") | awk '{print $3-$1, $4-$2}') $hz $client \
$(echo "$out" | awk '/requests in/ {v=$(NF-1); u=v; sub(/[0-9.]+/, "", u); sub(/[A-Z]+$/, "", v);
  m = u=="TB" ? 2^40 : u=="GB" ? 2^30 : u=="MB" ? 2^20 : u=="KB" ? 2^10 : 1; printf "%.0f", v*m}') $origin_cpu" >> "$dir/cost/runs.txt"
  fi
  printf '%s\n%s\n' "== $1 -c$2" "$out" >> "$dir/logs/wrk.log"
  local rps errors non2xx
  if [ "$3" = 0 ]; then
    rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
  else
    rps=$(echo "$out" | awk '/^Transfer\/sec:/ {v=$2; u=v; sub(/[0-9.]+/, "", u); sub(/[A-Z]+$/, "", v);
      m = u=="GB" ? 1024 : u=="MB" ? 1 : u=="KB" ? 1/1024 : u=="TB" ? 1048576 : 1/1048576; printf "%.1f", v*m}')
  fi
  errors=$(echo "$out" | awk -F'[ ,]+' '/Socket errors:/ {print $4+$6+$8+$10}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  echo "${rps:-0} $(( ${errors:-0} + ${non2xx:-0} )) $(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN {printf "%.3f", t/hz}') ${client:-0}"
}

# How sure a case's ratio is, from the paired rounds (edge and nginx of the same round): the geometric
# mean of the per-round ratios with a 95% confidence interval (Student's t on the logs), a verdict
# against 1.25x and 1.0x, and the rounds the observed spread would need for an interval narrower than
# the gap between 1.0x and 1.25x (half-width under ln(1.25)/2). Input: lines "edge nginx".
ratio_stats() {
  awk 'function t95(df) { # two-sided 95% quantile of Student t
         if (df <= 0) return 0; split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23 2.20 2.18 2.16 2.14 2.13", t, " ")
         return df <= 15 ? t[df] : 2.0 }
       $1 > 0 && $2 > 0 { n++; l[n] = log($1 / $2); sum += l[n] }
       END {
         if (n == 0) { print "n/a n/a n/a n/a"; exit }
         m = sum / n; ss = 0; for (i = 1; i <= n; i++) ss += (l[i] - m) ^ 2
         s = n > 1 ? sqrt(ss / (n - 1)) : 0; h = n > 1 ? t95(n - 1) * s / sqrt(n) : 0
         lo = exp(m - h); hi = exp(m + h)
         if (n < 2) v = "one-round"; else if (lo >= 1.25) v = ">=1.25x"; else if (hi < 1.0) v = "behind"; else if (lo >= 1.0) v = "ahead"; else if (hi < 1.25) v = "<1.25x"; else v = "unsure"
         need = s > 0 ? int((1.96 * s / (log(1.25) / 2)) ^ 2) + 1 : 2; if (need < 2) need = 2
         printf "%.2f-%.2f %s %d %.2f\n", lo, hi, v, need, exp(m) }'
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
quartiles() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "n/a"; else printf "%s / %s / %s", a[int((NR+3)/4)], a[int((NR+1)/2)], a[int((3*NR+1)/4)]}'; }

# warm-up (JIT, page cache, TLS session setup, and the cache cases' objects into both caches), not measured
while IFS='|' read -r name path scheme size script; do
  # scripted cases (misses) are warmed up just before their own rounds (below)
  if [ -z "$name" ] || [ -n "${script:-}" ]; then continue; fi
  for server in edge nginx; do
    wrk -t"$threads" -c64 -d"${BENCH_WARMUP:-3}s" --timeout 60s "$(url_of "$server" "$scheme" "$path")" >/dev/null 2>&1 || true
  done
done <<< "$cases"
# the hit cases must really be hits on both sides
for path in /cached/bench/manifest-1k.m3u8 /cached/bench/seg-2m.m4s /cached/bench/seg-16m.m4s; do
  if grep -q "|$path|" <<< "$cases"; then
    echo "warm cache $path: edge $(curl -s -o /dev/null -D - "http://127.0.0.1:$edge_http$path" | tr -d '\r' | awk -F': ' 'tolower($1)=="x-cache" {print $2}')," \
         "nginx $(curl -s -o /dev/null -D - "http://127.0.0.1:$nginx_http$path" | tr -d '\r' | awk -F': ' 'tolower($1)=="x-cache" {print $2}')"
  fi
done

results=()
while IFS='|' read -r name path scheme size script; do
  [ -z "$name" ] && continue
  if [ -n "${script:-}" ]; then
    # a scripted case (misses) is warmed up here, just before its rounds, not with the others: each of its
    # requests is a new object, which would churn both caches before the hit cases ran. Without it the
    # first rounds would pay the JIT of the edge's fill path (C2 took 0.5-1.3 CPU-seconds of each 5 s
    # miss run on a cold edge)
    for server in edge nginx; do
      wrk -t"$threads" -c64 -d"${BENCH_MISS_WARMUP:-60}s" --timeout 60s -s "$script" "$(url_of "$server" "$scheme" "$path")" >/dev/null 2>&1 || true
    done
  fi
  for conns in $conns_list; do
    edge_runs=() nginx_runs=() edge_eff=() nginx_eff=() ceiling_runs=() client_share=() errs=0
    for round in $(seq 1 "$rounds"); do
      if [ $((round % 2)) = 1 ]; then order="edge nginx"; else order="nginx edge"; fi
      if [ "$size" != 0 ]; then
        # the loopback ceiling in the same round, under the same conditions, for the same object size
        bps=$("$dir/loopback" pull "$(probe_port "$size")" "$conns" "$duration" "$threads")
        ceiling_runs+=("$(awk -v b="$bps" 'BEGIN {printf "%.1f", b/1048576}')")
      fi
      for server in $order; do
        if [ "$server" = edge ]; then spid=$edge_pid; else spid=$nginx_pid; fi
        cost_tag="$name@$conns@$server@$round"
        read -r rps e cpu ccpu < <(run_wrk "$(url_of "$server" "$scheme" "$path")" "$conns" "$size" "$spid" "${script:-}")
        errs=$((errs + e))
        client_share+=("$(awk -v c="$ccpu" -v d="$duration" -v n="$cpus" 'BEGIN {printf "%.0f", 100*c/(d*n)}')")
        # efficiency: work done per CPU-second of the server process (robust to other load on the box)
        eff=$(awk -v r="$rps" -v d="$duration" -v c="$cpu" 'BEGIN {if (c>0) printf "%.1f", r*d/c; else print 0}')
        if [ "$server" = edge ]; then edge_runs+=("$rps"); edge_eff+=("$eff"); else nginx_runs+=("$rps"); nginx_eff+=("$eff"); fi
      done
    done
    edge_v=$(printf '%s\n' "${edge_runs[@]}" | median)
    nginx_v=$(printf '%s\n' "${nginx_runs[@]}" | median)
    ceil=""
    if [ "$size" != 0 ]; then ceil=$(printf '%s\n' "${ceiling_runs[@]}" | median); fi
    edge_e=$(printf '%s\n' "${edge_eff[@]}" | median)
    nginx_e=$(printf '%s\n' "${nginx_eff[@]}" | median)
    if [ "$size" = 0 ]; then unit="req/s"; eunit="req/cpu-s"; else unit="MiB/s"; eunit="MiB/cpu-s"; fi
    ratio=$(awk -v a="$edge_v" -v b="$nginx_v" 'BEGIN {if (b>0) printf "%.2f", a/b; else print "n/a"}')
    read -r ci verdict need _ < <(paste -d' ' <(printf '%s\n' "${edge_runs[@]}") <(printf '%s\n' "${nginx_runs[@]}") | ratio_stats)
    client=$(printf '%s\n' "${client_share[@]}" | median)
    eratio=$(awk -v a="$edge_e" -v b="$nginx_e" 'BEGIN {if (b>0) printf "%.2f", a/b; else print "n/a"}')
    frac=""
    if [ -n "$ceil" ]; then frac=$(awk -v e="$edge_v" -v c="$ceil" 'BEGIN {if (c>0) printf "%.2f", e/c}'); fi
    line=$(printf '%-19s %5s %6s %9s %9s %5s %9s %-9s %4s | %9s %9s %5s %9s %4s | %8s %5s | %4s%%' "$name" "$conns" "$unit" "$edge_v" "$nginx_v" "$ratio" \
      "$ci" "$verdict" "$need" "$edge_e" "$nginx_e" "$eratio" "$eunit" "$errs" "$ceil" "$frac" "$client")
    echo "$line"
    results+=("$line")
  done
done <<< "$cases"

# ---- slice miss: the first 2 MiB of a 1 GiB object, each request a cold cache (a new path) ----
slice_lines=()
if [ "${BENCH_SLICE:-1}" = 1 ]; then
  for i in $(seq 1 100); do
    curl -fs -o /dev/null "http://127.0.0.1:$slice_admin/readyz" && break
    [ "$i" = 100 ] && { echo "bench: the slicing edge did not come up; see $dir/logs/edge-slice.log" >&2; exit 1; }
    sleep 0.2
  done
  slice_once() { # port id -> "first-byte-ms total-ms bytes status"
    curl -s -o /dev/null -r 0-2097151 -w '%{time_starttransfer} %{time_total} %{size_download} %{http_code}\n' \
      "http://127.0.0.1:$1/slice/$2/big-1g.mp4" | awk '{printf "%.2f %.2f %d %s\n", $1*1000, $2*1000, $3, $4}'
  }
  slice_rounds=${BENCH_SLICE_ROUNDS:-31} slice_warmup=${BENCH_SLICE_WARMUP:-1000} slice_jit=${BENCH_SLICE_JIT_WARMUP:-10000}
  if [ "$slice_warmup" -gt 0 ]; then
    echo "slice miss: $slice_warmup cold requests to each server first (not counted)"
    for i in $(seq 1 "$slice_warmup"); do
      slice_once "$slice_http" "w$i-$RANDOM" > /dev/null
      slice_once "$nginx_http" "w$i-$RANDOM" > /dev/null
    done
  fi
  # the JIT's warm-up: the slicing edge runs its miss path once per request, and C2 compiles it only
  # after thousands (5,000-9,000 here; before that C1's profiling code answers). Both servers get the
  # same cold requests, over one keep-alive connection each (curl's URL globbing): quicker than a
  # connection each, and the same request path once the request is read.
  if [ "$slice_jit" -gt 0 ]; then
    echo "slice miss: $slice_jit more cold requests to each server, one keep-alive connection each (not counted)"
    for port in "$slice_http" "$nginx_http"; do
      curl -fsS -r 0-2097151 "http://127.0.0.1:$port/slice/j[1-$slice_jit]-$RANDOM/big-1g.mp4" > /dev/null \
        || { echo "bench: the JIT warm-up's requests to port $port failed" >&2; exit 1; }
    done
  fi
  # whether the measured requests meet C2's code: the miss path's larger methods (too large to be inlined
  # into a caller) by the highest tier whose code is in use (4: C2; 3: C1 with profiling; none: interpreted)
  jit_tiers=$("$JAVA_HOME/bin/jcmd" "$slice_pid" Compiler.codelist 2>/dev/null | awk '
    BEGIN { n = split("io.videoedge.server.cache.SliceHandler.findInTiersOrFetch io.videoedge.server.cache.Fill.fetch io.videoedge.server.cache.Fill.stream", m, " ") }
    { for (i = 1; i <= n; i++) if (index($0, " " m[i] "(") && $3 == 0 && $2 + 0 > best[i]) best[i] = $2 + 0 }
    END { for (i = 1; i <= n; i++) { k = m[i]; sub(/.*\.server\./, "", k); printf "%s%s %s", (i > 1 ? ", " : ""), k, (best[i] ? "tier " best[i] : "interpreted") } }')
  echo "slice miss: the edge's miss path before the measured requests: ${jit_tiers:-unknown (jcmd Compiler.codelist failed)}"
  edge_fb=() edge_tot=() nginx_fb=() nginx_tot=() slice_errs=0
  printf 'server\tround\tfirst_byte_ms\ttotal_ms\n' > "$dir/logs/slice-requests.tsv"
  # the first byte as it left each server, from a packet capture (curl's also holds its own wait for a CPU)
  capture_pid=
  if command -v tcpdump >/dev/null && [ "$(id -u)" = 0 ]; then
    rm -f "$dir/logs/slice.pcap"
    tcpdump -i lo -nn -s 128 -Z root -U -w "$dir/logs/slice.pcap" "tcp port $slice_http or tcp port $nginx_http or tcp port $origin_port" \
      > "$dir/logs/tcpdump.log" 2>&1 &
    capture_pid=$!
    for i in $(seq 1 50); do grep -q listening "$dir/logs/tcpdump.log" && break; sleep 0.1; done
  else
    echo "slice miss: no packet capture (needs root and tcpdump: DEPS_SET=all make deps); curl's first byte only"
  fi
  for round in $(seq 1 "$slice_rounds"); do
    if [ $((round % 2)) = 1 ]; then order="edge nginx"; else order="nginx edge"; fi
    for server in $order; do
      if [ "$server" = edge ]; then port=$slice_http; else port=$nginx_http; fi
      read -r fb tot bytes code < <(slice_once "$port" "r$round-$RANDOM")
      [ "$code" = 206 ] && [ "$bytes" = 2097152 ] || { slice_errs=$((slice_errs + 1)); echo "slice miss: $server answered $code with $bytes bytes" >&2; }
      if [ "$server" = edge ]; then edge_fb+=("$fb"); edge_tot+=("$tot"); else nginx_fb+=("$fb"); nginx_tot+=("$tot"); fi
      printf '%s\t%s\t%s\t%s\n' "$server" "$round" "$fb" "$tot" >> "$dir/logs/slice-requests.tsv"
    done
  done
  wire=
  if [ -n "$capture_pid" ]; then
    kill -INT "$capture_pid"; wait "$capture_pid" 2>/dev/null || true
    # lines "edge q25 q50 q75 n", "nginx ...", "edge phases ask origin answer n", "nginx phases ...", "bound X"
    wire=$(python3 "$here/first-byte.py" "$dir/logs/slice.pcap" "edge=$slice_http" "nginx=$nginx_http" \
      --last "$slice_rounds" --origin "$origin_port" 2>>"$dir/logs/tcpdump.log") || wire=
  fi
  efb=$(printf '%s\n' "${edge_fb[@]}" | median) nfb=$(printf '%s\n' "${nginx_fb[@]}" | median)
  etot=$(printf '%s\n' "${edge_tot[@]}" | median) ntot=$(printf '%s\n' "${nginx_tot[@]}" | median)
  # what each pulled from the origin for those requests (the origin serves them under /bench/big-1g.mp4)
  edge_origin=$(curl -s "http://127.0.0.1:$slice_admin/metrics" | awk '/^videoedge_origin_request_seconds_count\{result="ok"\}/ {print $2}')
  slice_lines+=("$(printf '%-19s %9s %9s %5s | %9s %9s %5s | %8s %8s %4s' slice-miss-1g-2m "$efb" "$nfb" \
    "$(awk -v a="$efb" -v b="$nfb" 'BEGIN {if (a>0) printf "%.2f", b/a; else print "n/a"}')" \
    "$(awk -v t="$etot" 'BEGIN {if (t>0) printf "%.1f", 2000/t}')" \
    "$(awk -v t="$ntot" 'BEGIN {if (t>0) printf "%.1f", 2000/t}')" \
    "$(awk -v a="$etot" -v b="$ntot" 'BEGIN {if (a>0) printf "%.2f", b/a; else print "n/a"}')" \
    "$etot" "$ntot" "$slice_errs")")
  echo "slice miss: first byte quartiles (ms, 25th / median / 75th): edge $(printf '%s\n' "${edge_fb[@]}" | quartiles)," \
    "nginx $(printf '%s\n' "${nginx_fb[@]}" | quartiles); every request: logs/slice-requests.tsv"
  if [ -n "$wire" ]; then
    ewire=$(awk '$1=="edge" && $2!="phases" {print $3}' <<<"$wire") nwire=$(awk '$1=="nginx" && $2!="phases" {print $3}' <<<"$wire")
    echo "slice miss: first byte on the wire, request to first response byte (packet capture, ms, 25th / median / 75th):" \
      "$(awk '$2!="phases" && $1!="bound" {printf "%s%s %s / %s / %s (n=%s)", (n++?", ":""), $1, $2, $3, $4, $5}' <<<"$wire"); logs/slice.pcap"
    # the same first byte in three parts; the origin's part is the same work for both servers
    echo "slice miss: on the wire in parts (medians, ms: request -> origin request / the origin's first byte / -> first byte out):" \
      "$(awk '$2=="phases" {printf "%s%s %s / %s / %s (n=%s)", (n++?", ":""), $1, $3, $4, $5, $6}' <<<"$wire");" \
      "a server that cost nothing would be $(awk '$1=="bound" {print $2}' <<<"$wire")x nginx (nginx's first byte / the edge's origin part)"
    slice_lines+=("$(printf '%-19s %9s %9s %5s | %9s %9s %5s | %8s %8s %4s' "  on the wire" "$ewire" "$nwire" \
      "$(awk -v a="$ewire" -v b="$nwire" 'BEGIN {if (a>0) printf "%.2f", b/a; else print "n/a"}')" "" "" "" "" "" "")")
  fi
  echo "slice miss: edge origin slice fetches $edge_origin for $((slice_rounds + slice_warmup + slice_jit)) cold requests (4 MiB each; warm-up included)"
fi

echo
echo "RESULTS (medians of $rounds alternating rounds: throughput; work per CPU-second of the server process;"
echo "         errors = wrk socket errors + non-2xx; loopback ceiling = raw sendfile TCP copy of the same file"
echo "         between two processes, measured in the same rounds; frac = edge throughput / ceiling;"
echo "         ci95 = 95% confidence interval of the ratio from the per-round pairs (Student t on logs);"
echo "         verdict: >=1.25x / ahead (>1.0x) / <1.25x / behind (<1.0x) / unsure, when the interval says so;"
echo "         n = rounds the observed spread needs to separate 1.25x from 1.0x; wrk = client CPU, % of the machine)"
printf '%-19s %5s %6s %9s %9s %5s %9s %-9s %4s | %9s %9s %5s %9s %4s | %8s %5s | %5s\n' case conns unit edge nginx ratio ci95 verdict n edge nginx ratio unit errs ceiling frac wrk
for r in "${results[@]}"; do
  echo "$r"
done
if [ ${#slice_lines[@]} -gt 0 ]; then
  echo
  echo "SLICE MISS (medians of $slice_rounds alternating cold requests after $((slice_warmup + slice_jit)) each not counted, one at a time, for bytes 0-2097151 of a"
  echo "            1 GiB object: edge cache.slice=4m, nginx slice 4m + proxy_cache; ratio > 1: the edge is faster)"
  printf '%-19s %9s %9s %5s | %9s %9s %5s | %8s %8s %4s\n' case "fb-ms" "fb-ms" ratio "MiB/s" "MiB/s" ratio "ms" "ms" errs
  printf '%-19s %9s %9s %5s | %9s %9s %5s | %8s %8s %4s\n' "" edge nginx "" edge nginx "" edge nginx ""
  for r in "${slice_lines[@]}"; do echo "$r"; done
fi
if [ "${BENCH_COST:-0}" = 1 ]; then
  # the JIT's symbols for perf (Java frames), then the model
  "$JAVA_HOME/bin/jcmd" "$edge_pid" Compiler.perfmap >/dev/null 2>&1 || echo "bench: jcmd Compiler.perfmap failed; Java frames stay unnamed" >&2
  echo
  python3 "$here/cost-model.py" "$dir/cost"
fi
echo "logs: $dir/logs (wrk.log has every run)"
