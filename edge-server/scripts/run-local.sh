#!/usr/bin/env bash
# make run: the edge server on localhost with a generated sample set (HLS/fMP4-like, DASH, TS, VTT),
# a self-signed certificate, and a config rendered like the golden file but for localhost ports.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
module=$(dirname "$here")
. "$here/jvm-flags.sh"
: "${JAVA_HOME:?set JAVA_HOME (the Makefile does)}"
run_dir=${RUN_DIR:-$module/target/run}
http_port=${EDGE_HTTP_PORT:-8080} https_port=${EDGE_HTTPS_PORT:-8443} admin_port=${EDGE_ADMIN_PORT:-9400}
classpath="$module/target/classes:$module/target/lib/*"

mkdir -p "$run_dir"
if [ ! -f "$run_dir/content/index.m3u8" ]; then
  "$JAVA_HOME/bin/java" -cp "$classpath" io.videoedge.server.sample.SampleContent "$run_dir/content" --bench
fi
if [ ! -f "$run_dir/tls/tls.crt" ]; then
  mkdir -p "$run_dir/tls"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$run_dir/tls/tls.key" -out "$run_dir/tls/tls.crt" 2>/dev/null
fi
# the golden rendering (what the operator renders for examples/videoedge.yaml) made local
"$JAVA_HOME/bin/java" -cp "$classpath" io.videoedge.server.config.ConfigOverrides "$module/../testdata/edge-server/edge-server.yaml" \
  'acceptors[].address=127.0.0.1' "acceptors[0].port=$http_port" "acceptors[1].port=$https_port" \
  "acceptors[1].ssl.certFile=$run_dir/tls/tls.crt" "acceptors[1].ssl.privateKeyFile=$run_dir/tls/tls.key" \
  "acceptors[1].ssl.ticketDir=$run_dir/tickets" ticketKeys.source= ticketKeys.rotation=1h \
  admin.address=127.0.0.1 "admin.port=$admin_port" \
  "content.root=$run_dir/content" "cache.disk.path=$run_dir/cache" drainTimeout=5s >"$run_dir/edge-server.yaml"

cat <<TXT

VideoEdge edge server on localhost (Ctrl-C drains and stops it). Try:
  curl -v http://127.0.0.1:$http_port/index.m3u8
  curl -s http://127.0.0.1:$http_port/hls/playlist.m3u8
  curl -sI http://127.0.0.1:$http_port/hls/seg-00001.m4s
  curl -s -r 0-99 http://127.0.0.1:$http_port/mp4/clip.mp4 | xxd | head -3
  curl -s -o /dev/null -w '%{http_code} %{size_download} bytes\n' --cacert $run_dir/tls/tls.crt https://localhost:$https_port/bench/seg-16m.m4s
  curl -s -H 'If-None-Match: *' -o /dev/null -w '%{http_code}\n' http://127.0.0.1:$http_port/dash/manifest.mpd
  openssl s_client -connect 127.0.0.1:$https_port -tls1_3 -brief </dev/null
  curl -s http://127.0.0.1:$admin_port/metrics | grep ^videoedge_
  curl -s http://127.0.0.1:$admin_port/readyz
Files: $run_dir/content   Config: $run_dir/edge-server.yaml

TXT
# shellcheck disable=SC2046
exec "$JAVA_HOME/bin/java" $(edge_jvm_flags) -cp "$classpath" io.videoedge.server.EdgeServerMain --config "$run_dir/edge-server.yaml"
