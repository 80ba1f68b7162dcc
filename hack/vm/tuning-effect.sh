#!/bin/bash
# make tuning-effect: what the seed's tuning buys, counted on Debian's kernel under qemu (hack/vm/boot.sh
# with VM_LINK=1: the guest's two NICs on one link). The guest runs hack/vm/guest/effect.sh: 200 slow
# clients behind eth1 download from the edge server on eth0, untuned and then tuned by the agent; the
# table (socket memory per connection and the ratio, NET_RX softirqs per CPU, softnet drops and squeezes,
# retransmits) is printed at the end and kept in target/tuning-effect/tuning-effect.txt.
# EFFECT_CLIENTS (200), EFFECT_WARM (30 s), EFFECT_WINDOW (30 s) pass through to the guest.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
: "${JAVA_HOME:?set JAVA_HOME (the Makefile does)}"
out=$ROOT/target/tuning-effect fix=$ROOT/target/tuning-effect/fixtures
es=$ROOT/edge-server
for f in "$es/target/classes/libonenio.so" "$ROOT"/node-tuning/target/node-tuning-*.jar; do
  [ -e "$f" ] || die "$f missing: run 'make tuning-effect' (it builds with ./mvnw -DskipTests package first)"
done

rm -rf "$out"; mkdir -p "$fix"
cp_es="$es/target/classes:$es/target/lib/*"
"$JAVA_HOME/bin/java" -cp "$cp_es" io.videoedge.server.sample.SampleContent "$fix/content" --bench >/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
  -keyout "$fix/tls.key" -out "$fix/tls.crt" 2>/dev/null
# the golden rendering (notsentLowat 512k on the acceptors) on the guest's eth0, and the same without notsentLowat
overrides=('acceptors[].address=10.99.0.1' "acceptors[1].ssl.certFile=$fix/tls.crt" "acceptors[1].ssl.privateKeyFile=$fix/tls.key"
  acceptors[1].ssl.ticketDir=/tmp/vm/tickets admin.address=127.0.0.1 admin.port=9400
  content.root=/tmp/vm/content cache.disk.path=/tmp/vm/cache drainTimeout=1s ticketKeys.source= ticketKeys.rotation=1h)
"$JAVA_HOME/bin/java" -cp "$cp_es" io.videoedge.server.config.ConfigOverrides "$ROOT/testdata/edge-server/edge-server.yaml" \
  "${overrides[@]}" >"$fix/edge-server.yaml"
"$JAVA_HOME/bin/java" -cp "$cp_es" io.videoedge.server.config.ConfigOverrides "$ROOT/testdata/edge-server/edge-server.yaml" \
  "${overrides[@]}" 'acceptors[].notsentLowat=0' >"$fix/edge-server-untuned.yaml"
grep -q 'notsentLowat: 512k' "$fix/edge-server.yaml" || die "the golden config no longer sets notsentLowat 512k"
! grep -q '^ *notsentLowat:' "$fix/edge-server-untuned.yaml" || die "notsentLowat=0 did not take it out"
printf 'REPO=%q\nFIX=%q\nJAVA_HOME=%q\nEFFECT_CLIENTS=%q\nEFFECT_WARM=%q\nEFFECT_WINDOW=%q\n' "$ROOT" "$fix" "$JAVA_HOME" \
  "${EFFECT_CLIENTS:-200}" "${EFFECT_WARM:-30}" "${EFFECT_WINDOW:-30}" >"$out/env"
log "fixtures ready"

rc=0
VM_LINK=1 "$ROOT/hack/vm/boot.sh" "$out" "$ROOT/hack/vm/guest/effect.sh" || rc=$?
echo "::: tuning-effect ($out/tuning-effect.txt; checks in $out/results, logs in $out/logs)"
cat "$out/results" 2>/dev/null || true
[ -s "$out/tuning-effect.txt" ] || die "no table: the guest did not finish its runs (exit code $rc)"
cat "$out/tuning-effect.txt"
[ "$rc" -eq 0 ] || die "tuning-effect: a step failed in the guest (exit code $rc): see $out/results"
