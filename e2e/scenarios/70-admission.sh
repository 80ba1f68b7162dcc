#!/usr/bin/env bash
# Bad VideoEdges are refused at admission by the CRD's schema and CEL rules, with a message a person
# can act on, and nothing is created.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
scenario "70 admission refuses bad VideoEdges with a clear message"

# refused NAME EXPECTED-MESSAGE SPEC-JSON
refused() {
  local name=$1 want=$2 spec=$3 out rc=0
  out=$(k apply -f - 2>&1 <<YAML
apiVersion: videoedge.io/v1alpha1
kind: VideoEdge
metadata: {name: $name, namespace: $VE_NS}
spec: $spec
YAML
) || rc=$?
  [ "$rc" -ne 0 ] || fail "$name: kubectl apply succeeded, expected a refusal (output: $out)"
  assert_contains "$name refused (kubectl exit $rc): \"$want\"" "$want" "$out"
  info "$(head -c 400 <<<"$out")"
  if k -n "$VE_NS" get ve "$name" >/dev/null 2>&1; then fail "$name was created"; fi
}

refused bad-sysctl "sysctl names must start with net.core., net.ipv4., net.ipv6., vm. or kernel.sched_; not allowed: kernel.panic" \
  '{"tuning": {"sysctls": {"net.core.somaxconn": "8192", "kernel.panic": "10"}}}'
refused bad-tcp-mem "net.ipv4.tcp_mem, tcp_rmem, tcp_wmem and udp_mem must be non-decreasing (min <= pressure/default <= max)" \
  '{"tuning": {"sysctls": {"net.ipv4.tcp_mem": "300 200 100"}}}'
refused bad-ports "http.port and https.port must differ: both acceptors bind on the node's host network" \
  '{"server": {"http": {"port": 8443}, "https": {"port": 8443}}, "tls": {"mode": "openssl", "secretName": "edge-tls"}}'
refused bad-tls-mode 'spec.tls.mode: Unsupported value: "quic"' '{"tls": {"mode": "quic"}}'
refused bad-cpus "spec.server.cpus: Invalid value: 0" '{"server": {"cpus": 0}}'
refused bad-content-path "contentPath must not contain '..' segments" '{"server": {"contentPath": "/var/lib/../../etc"}}'
refused cache-in-content "cache.disk.path and contentPath must not be the same directory nor one inside the other" \
  '{"server": {"contentPath": "/srv/video", "cache": {"disk": {"path": "/srv/video/cache"}}}}'
refused content-kubelet "contentPath must not be, hold or lie in a system directory of the node" \
  '{"server": {"contentPath": "/var/lib/kubelet/pods"}}'
refused swappiness "sysctl value out of range: vm.swappiness is 0 to 200" \
  '{"tuning": {"sysctls": {"vm.swappiness": "300"}}}'

# what CEL cannot check (a Secret's existence) the operator refuses as a whole, in a condition and an Event
since=$(date -u +%FT%TZ)
k apply -f - >&2 <<YAML
apiVersion: videoedge.io/v1alpha1
kind: VideoEdge
metadata: {name: no-secret, namespace: $VE_NS}
spec:
  nodeSelector: {videoedge.io/role: nowhere}
  tls: {mode: openssl, secretName: missing-tls}
YAML
invalid() { [ "$(k -n "$VE_NS" get ve no-secret -o jsonpath='{.status.conditions[?(@.type=="Ready")].reason}')" = InvalidSpec ]; }
wait_until "VideoEdge no-secret: Ready=False reason InvalidSpec" 60 invalid
assert_contains "its message names the Secret and the fix" \
  "TLS Secret $VE_NS/missing-tls (tls.secretName) not found: create a Secret of type kubernetes.io/tls" \
  "$(k -n "$VE_NS" get ve no-secret -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}')"
# (since the apply: an Event of an earlier run's no-secret satisfies nothing)
event() { events_since "$since" "involvedObject.kind=VideoEdge,involvedObject.namespace=$VE_NS,involvedObject.name=no-secret,reason=InvalidSpec" | grep '^Warning InvalidSpec '; }
wait_until "Warning Event InvalidSpec on no-secret since the apply" 30 event
assert_eq "no DaemonSet for it" "" "$(k -n "$VE_NS" get ds no-secret-edge-server --ignore-not-found -o name)"
k -n "$VE_NS" delete ve no-secret --wait=true >&2

# the good one is untouched
assert_eq "VideoEdge $VE_NAME still Ready" True "$(ve_condition Ready)"
