#!/usr/bin/env bash
# A live server change while a long download runs from a node: the download completes with the right
# bytes, no server restarted, the new socket options are in effect on a new live socket on every node
# (read back with getsockopt), the NodeTunings are untouched.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
read -r w1 w2 <<<"$(fleet_nodes)"
ip=$(nip "$w1")
scenario "f40 a live reconfigure under a download: no restart, new values on new live sockets on both nodes"

uids0="$(pod_on "$w1" .metadata.uid) $(pod_on "$w2" .metadata.uid)"
gens0="$(nt_field "$w1" '{.metadata.generation}') $(nt_field "$w2" '{.metadata.generation}')"
rev0=$(k -n "$VE_NS" get ds "$VE_NAME-edge-server" -o jsonpath='{.spec.template.metadata.annotations.videoedge\.io/pod-revision}')
declare -A applied0
for n in $w1 $w2; do applied0[$n]=$(reloads_applied "$(nip "$n")"); done
body="$STATE_DIR/f40-download.bin"
start_download "$ip" "$HTTP_PORT" /bench/seg-16m.m4s "$body"
old_session=$(sockets "$ip" | jq -c "[.sessions.items[] | select(.localPort == $HTTP_PORT)][0]")
info "in flight on $w1: $old_session"

k -n "$VE_NS" patch ve "$VE_NAME" --type merge -p '{"spec":{"server":{"socket":{"notsentLowat":"256k","recvBuf":"96k"}}}}' >&2
s=$SECONDS
for n in $w1 $w2; do
  nip_=$(nip "$n")
  reloaded() { [ "$(reloads_applied "$1")" -gt "$2" ]; }
  wait_until "$n applied the new config live" 120 reloaded "$nip_" "${applied0[$n]:-0}"
  listening() { sockets "$1" | jq -e "[.listening[] | select(.localPort == $HTTP_PORT)][0] | .notsentLowat == 262144 and .recvBuf == 98304"; }
  wait_until "$n: the listening socket has the new options" 30 listening "$nip_"
  new_session=$(new_connection_options "$nip_" "$HTTP_PORT")
  assert_contains "$n: a new connection's live socket has notsentLowat 262144" '"notsentLowat":262144' "$new_session"
  assert_contains "$n: ... and recvBuf 98304" '"recvBuf":98304' "$new_session"
done
say "       live on both nodes $((SECONDS - s))s after the patch"
still=$(sockets "$ip" | jq -c "[.sessions.items[] | select(.localPort == $HTTP_PORT and .remote == $(jq '.remote' <<<"$old_session"))][0] // empty")
assert_contains "the download was still in flight after the change, with its old socket options" \
  "\"notsentLowat\":$(jq '.notsentLowat' <<<"$old_session")" "$still"
wait "$DOWNLOAD"
assert_eq "the download completed with the object's bytes" \
  "$(nexec "$w1" sha256sum "$CONTENT_PATH/bench/seg-16m.m4s" | cut -d' ' -f1)" "$(sha256sum "$body" | cut -d' ' -f1)"
assert_eq "no edge server restarted (pod UIDs)" "$uids0" "$(pod_on "$w1" .metadata.uid) $(pod_on "$w2" .metadata.uid)"
assert_eq "no container restarted" "0 0" \
  "$(pod_on "$w1" '.status.containerStatuses[0].restartCount') $(pod_on "$w2" '.status.containerStatuses[0].restartCount')"
assert_eq "pod revision unchanged" "$rev0" \
  "$(k -n "$VE_NS" get ds "$VE_NAME-edge-server" -o jsonpath='{.spec.template.metadata.annotations.videoedge\.io/pod-revision}')"
assert_eq "NodeTunings untouched (generations)" "$gens0" "$(nt_field "$w1" '{.metadata.generation}') $(nt_field "$w2" '{.metadata.generation}')"
wait_until "the rollout of the live change is complete" "$E2E_TIMEOUT" rollout_complete
