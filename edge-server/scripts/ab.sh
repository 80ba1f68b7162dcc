#!/usr/bin/env bash
# Two variants of the edge server side by side: two builds (AB_CLASSES_A, AB_CLASSES_B: class
# directories, e.g. a copy of target/classes made before a change) or one build with different JVM
# options (AB_A, AB_B: e.g. a -Dvideoedge.* measurement switch), driven by wrk in alternating rounds
# on one path. Prints per variant the throughput, the server's CPU per MiB and per request, and the
# client's (wrk's) CPU per MiB, from the same rounds. For deciding whether a change to the edge pays
# off before it meets nginx in `make bench`. A measurement, never a test.
#   AB_A / AB_B   JVM options of the two variants (default: none)
#   AB_CLASSES_A / AB_CLASSES_B   class directories of the two variants (default: target/classes)
#   AB_PATH       path to fetch (/bench/seg-2m.m4s)   AB_SCHEME https|http (https)
#   AB_CONNS (64)  AB_ROUNDS (10)  AB_DURATION (s per wrk run, 3)
#   AB_HEADER: one request header for every request (e.g. 'If-Modified-Since: ...'; non-2xx answers count as errors)
# Uses make bench's content, certificate, rendered config and origin (target/bench: run `make bench` once);
# cached paths (AB_PATH=/cached/bench/manifest-1k.m3u8) are filled from that origin in the warm-up.
# As root it runs in a private network namespace set up as make bench's is (scripts/netns.sh: notsent_lowat,
# BENCH_CC, the origin's address and BENCH_ORIGIN_CC); make bench's origin must have been rendered the same way.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "${AB_IN_NETNS:-}" ] && [ "$(id -u)" = 0 ] && unshare --net true 2>/dev/null; then
  exec env AB_IN_NETNS=1 unshare --net "$0" "$@"
fi
if [ -n "${AB_IN_NETNS:-}" ]; then
  . "$here/netns.sh"
  bench_netns_setup ab
fi
module=$(dirname "$here")
. "$here/jvm-flags.sh"
: "${JAVA_HOME:?set JAVA_HOME (the Makefile does)}"
dir=${BENCH_DIR:-$module/target/bench}
[ -f "$dir/edge-server.yaml" ] && [ -f "$dir/content/bench/seg-2m.m4s" ] \
  || { echo "ab: no bench set-up under $dir: run 'make bench' once (BENCH_QUICK=1 is enough)" >&2; exit 1; }
lib="$module/target/lib/*"
path=${AB_PATH:-/bench/seg-2m.m4s} scheme=${AB_SCHEME:-https} conns=${AB_CONNS:-64}
rounds=${AB_ROUNDS:-10} duration=${AB_DURATION:-3} hz=$(getconf CLK_TCK)

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true' EXIT
start() { # variant http-port https-port admin-port jvm-options class-directory -> pid
  local classpath="$6:$lib"
  "$JAVA_HOME/bin/java" -cp "$classpath" io.videoedge.server.config.ConfigOverrides "$dir/edge-server.yaml" \
    "acceptors[0].port=$2" "acceptors[1].port=$3" "admin.port=$4" "acceptors[1].ssl.ticketDir=$dir/tickets-ab-$1" \
    "cache.disk.path=$dir/edge-cache-ab-$1" accessLog.enabled=false > "$dir/edge-ab-$1.yaml"
  rm -rf "$dir/edge-cache-ab-$1"
  # shellcheck disable=SC2046,SC2086
  EDGE_MAX_DIRECT=${EDGE_MAX_DIRECT:-96m} "$JAVA_HOME/bin/java" $(EDGE_MAX_DIRECT=${EDGE_MAX_DIRECT:-96m} edge_jvm_flags) $5 \
    -cp "$classpath" io.videoedge.server.EdgeServerMain --config "$dir/edge-ab-$1.yaml" > "$dir/logs/edge-ab-$1.log" 2>&1 &
  echo $!
}
mkdir -p "$dir/logs"
# the bench's origin (its nginx.conf, left by make bench), for paths the edges' caches fill from it (/cached/...)
if [ -f "$dir/origin/nginx.conf" ]; then
  nginx -p "$dir/origin" -c "$dir/origin/nginx.conf" -e "$dir/logs/origin-error.log" &
  pids+=($!)
fi
pid_a=$(start a 38080 38443 39400 "${AB_A:-}" "${AB_CLASSES_A:-$module/target/classes}"); pids+=("$pid_a")
pid_b=$(start b 38081 38444 39401 "${AB_B:-}" "${AB_CLASSES_B:-$module/target/classes}"); pids+=("$pid_b")
for i in $(seq 1 300); do
  curl -fs -o /dev/null http://127.0.0.1:39400/readyz && curl -fs -o /dev/null http://127.0.0.1:39401/readyz && break
  [ "$i" = 300 ] && { echo "ab: the servers did not come up; see $dir/logs/edge-ab-*.log" >&2; exit 1; }
  sleep 0.2
done
url() { if [ "$scheme" = https ]; then echo "https://localhost:$1$path"; else echo "http://127.0.0.1:$1$path"; fi; }
port_a=$([ "$scheme" = https ] && echo 38443 || echo 38080) port_b=$([ "$scheme" = https ] && echo 38444 || echo 38081)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "ab: A = '${AB_A:-}' ${AB_CLASSES_A:-}, B = '${AB_B:-}' ${AB_CLASSES_B:-}; $scheme $path, $conns connections, $rounds rounds of ${duration}s, alternating"
for port in "$port_a" "$port_b"; do wrk -t"$(nproc)" -c"$conns" ${AB_HEADER:+-H "$AB_HEADER"} -d2s "$(url "$port")" >/dev/null; done # warm-up
for round in $(seq 1 "$rounds"); do
  if [ $((round % 2)) = 1 ]; then order="a b"; else order="b a"; fi
  for v in $order; do
    if [ "$v" = a ]; then pid=$pid_a port=$port_a; else pid=$pid_b port=$port_b; fi
    before=$(ticks "$pid")
    out=$( { TIMEFORMAT='%U %S'; time wrk -t"$(nproc)" -c"$conns" ${AB_HEADER:+-H "$AB_HEADER"} -d"${duration}s" "$(url "$port")"; } 2>"$dir/logs/ab-wrk.time")
    after=$(ticks "$pid")
    # variant round MiB requests server-ticks client-seconds errors
    echo "$v $round $(echo "$out" | awk '/requests in/ {v=$(NF-1); u=v; sub(/[0-9.]+/, "", u); sub(/[A-Z]+$/, "", v);
        m = u=="TB" ? 1048576 : u=="GB" ? 1024 : u=="MB" ? 1 : u=="KB" ? 1/1024 : 1/1048576; printf "%.3f", v*m}') \
      $(echo "$out" | awk '/requests in/ {print $1}') $((after - before)) $(awk '{print $1 + $2}' "$dir/logs/ab-wrk.time") \
      $(echo "$out" | awk -F'[ ,]+' '/Socket errors:/ {e=$4+$6+$8+$10} /Non-2xx/ {e+=$NF} END {print e+0}')"
  done
done | awk -v hz="$hz" -v d="$duration" '
  { print "  " $0; mib[$1] += $3; req[$1] += $4; cpu[$1] += $5 / hz; client[$1] += $6; err[$1] += $7; n[$1]++
  }
  END {
    printf "%-2s %10s %10s %14s %12s %14s %6s\n", "", "MiB/s", "req/s", "server ms/MiB", "server us/req", "client ms/MiB", "errors"
    for (v = 1; v <= 2; v++) { k = v == 1 ? "a" : "b"
      printf "%-2s %10.1f %10.0f %14.3f %12.2f %14.3f %6d\n", k, mib[k] / (n[k] * d), req[k] / (n[k] * d),
        1000 * cpu[k] / mib[k], 1e6 * cpu[k] / req[k], 1000 * client[k] / mib[k], err[k] }
    printf "a/b: throughput %.3f, server CPU per request %.3f\n", req["a"] / req["b"], (cpu["a"] / req["a"]) / (cpu["b"] / req["b"]) }'
