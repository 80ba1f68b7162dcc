#!/bin/bash
# make vm-test: the checks that need a real kernel with what the build machines' kernel lacks (the tls
# module, a multi-queue NIC with per-queue interrupts, NUMA), on Debian's own kernel under qemu
# (hack/vm/boot.sh). The Makefile builds the jars first (-Pvm: also TlsIT's class path for the guest).
# The host makes the fixtures, the guest runs hack/vm/guest/tests.sh, each check comes back as one
# PASS/FAIL line; the exit code is 1 when any check failed or the guest did not finish.
# Output: target/vm-test/ (results, logs/ per check, junit/ reports, console.log).
# VM_GROUPS="ktls nic pod sockets" (the default: all) picks the groups of checks (hack/vm/guest/<group>.sh);
# a run of fewer groups says so on its last line.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
: "${JAVA_HOME:?set JAVA_HOME (the Makefile does)}"
out=$ROOT/target/vm-test fix=$ROOT/target/vm-test/fixtures
all_groups="ktls nic pod sockets" groups=${VM_GROUPS:-ktls nic pod sockets}
es=$ROOT/edge-server
for f in "$es/target/classes/libonenio.so" "$es/target/vm/test-classpath.txt" "$ROOT"/node-tuning/target/node-tuning-*.jar; do
  [ -e "$f" ] || die "$f missing: run 'make vm-test' (it builds with ./mvnw -Pvm -DskipTests package first)"
done

# ---- fixtures, made on the host (fast) and read by the guest through the host's /
rm -rf "$out"; mkdir -p "$fix"
cp_es="$es/target/classes:$es/target/lib/*"
"$JAVA_HOME/bin/java" -cp "$cp_es" io.videoedge.server.sample.SampleContent "$fix/content" --bench >/dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$fix/tls.key" -out "$fix/tls.crt" 2>/dev/null
# the golden rendering (what the operator renders for examples/videoedge.yaml: kernelTlsEnabled) on the guest's loopback; its
# ticket keys rotated by the server itself (no Secret volume of shared keys in the guest)
"$JAVA_HOME/bin/java" -cp "$cp_es" io.videoedge.server.config.ConfigOverrides "$ROOT/testdata/edge-server/edge-server.yaml" \
  'acceptors[].address=127.0.0.1' "acceptors[1].ssl.certFile=$fix/tls.crt" "acceptors[1].ssl.privateKeyFile=$fix/tls.key" \
  acceptors[1].ssl.ticketDir=/tmp/vm/tickets admin.address=127.0.0.1 admin.port=9400 \
  content.root=/tmp/vm/content cache.disk.path=/tmp/vm/cache drainTimeout=5s \
  ticketKeys.source= ticketKeys.rotation=1h >"$fix/edge-server.yaml"
grep -q 'kernelTlsEnabled: true' "$fix/edge-server.yaml" || die "the golden config no longer asks for kernel TLS"
printf 'REPO=%q\nFIX=%q\nJAVA_HOME=%q\nVM_GROUPS=%q\n' "$ROOT" "$fix" "$JAVA_HOME" "$groups" >"$out/env"
log "fixtures ready"

# ---- the guest
rc=0
"$ROOT/hack/vm/boot.sh" "$out" "$ROOT/hack/vm/guest/tests.sh" || rc=$?
passed=$(grep -c '^PASS' "$out/results" 2>/dev/null || true)
failed=$(grep -c '^FAIL' "$out/results" 2>/dev/null || true)
echo "::: vm-test results ($out/results; logs in $out/logs)"
cat "$out/results" 2>/dev/null || true
if [ "$rc" -ne 0 ] || [ "${failed:-0}" -ne 0 ] || [ "${passed:-0}" -eq 0 ]; then
  die "vm-test FAILED: ${passed:-0} passed, ${failed:-0} failed, guest exit code $rc"
fi
if [ "$groups" = "$all_groups" ]; then
  log "vm-test: all $passed checks passed"
else
  log "vm-test: all $passed checks of the groups '$groups' passed; PARTIAL RUN: the tier is '$all_groups'"
fi
