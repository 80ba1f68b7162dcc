#!/usr/bin/env bash
# A CachePurge reaches both workers during traffic: objects from the origin cached on both (X-Cache hit),
# a client loop fetching on both nodes while a CachePurge of /vod/hls/ is created; the purge Complete with
# 2/2 nodes acknowledged and what they removed, an Event Purged; then on every node the next request for
# each purged object is a miss (and the one after a hit), an object outside the prefix stays a hit, and
# every request of the loop was answered 200. The admin endpoint without the token: 401; with a wrong one:
# 403; the server keeps serving.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
scenario "f45 cache purge: acknowledged by every node during traffic, the next request a miss everywhere"
tmp=$(mktemp -d)
loop_pids=()
cleanup() { local p; for p in "${loop_pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
read -r n1 n2 <<<"$(fleet_nodes)"
objects=(/vod/hls/init.mp4 /vod/hls/seg-00001.m4s /vod/hls/playlist.m3u8)
outside=/vod/mp4/clip.mp4
xcache() { # xcache NODE PATH: the X-Cache header of a GET
  curl -sS -o /dev/null --max-time 10 -D - "http://$(nip "$1"):$HTTP_PORT$2" | tr -d '\r' | awk -F': ' 'tolower($1)=="x-cache" {print $2}'
}
cached() { local x; x=$(xcache "$1" "$2"); [[ $x == hit-* ]] || { echo "X-Cache $x"; return 1; }; }

k -n "$VE_NS" delete cachepurge --all --ignore-not-found >/dev/null
k -n "$VE_NS" rollout status deployment/origin --timeout="${E2E_TIMEOUT}s" >/dev/null
for n in "$n1" "$n2"; do
  for p in "${objects[@]}" "$outside"; do
    xcache "$n" "$p" >/dev/null
    wait_until "$n $p cached" 30 cached "$n" "$p"
  done
done
pass "both nodes have the objects cached (X-Cache hit-*)"

# the admin endpoint refuses without the node's credential, and the server keeps serving
ip1=$(nip "$n1")
assert_eq "POST /admin/purge without a token: 401" 401 \
  "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://$ip1:$ADMIN_PORT/admin/purge?prefix=/")"
assert_eq "POST /admin/purge with a wrong token: 403" 403 \
  "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Authorization: Bearer not-the-token' "http://$ip1:$ADMIN_PORT/admin/purge?prefix=/")"
assert_match "still cached and served after the refused purges" '^hit-' "$(xcache "$n1" /vod/hls/init.mp4)"

# traffic on both nodes while the purge runs: every answer must be 200
for n in "$n1" "$n2"; do
  ( ip=$(nip "$n"); while :; do
      for p in /vod/hls/seg-00002.m4s /vod/ts/seg-00001.ts; do
        curl -s -o /dev/null -w '%{http_code}\n' --max-time 10 "http://$ip:$HTTP_PORT$p" >>"$tmp/codes-$n" || echo 000 >>"$tmp/codes-$n"
      done
    done ) &
  loop_pids+=($!)
done
sleep 2
since=$(date -u +%FT%TZ) # an Event of an earlier purge named hls satisfies nothing
k apply -f - <<YAML
apiVersion: videoedge.io/v1alpha1
kind: CachePurge
metadata:
  name: hls
  namespace: $VE_NS
spec:
  videoEdge: $VE_NAME
  prefix: /vod/hls/
  deadlineSeconds: 120
YAML
k -n "$VE_NS" wait cachepurge/hls --for=condition=Complete --timeout=60s >/dev/null
sleep 1
for p in "${loop_pids[@]}"; do kill "$p" 2>/dev/null || true; done
wait 2>/dev/null || true
loop_pids=()
k -n "$VE_NS" get cachepurge hls >&2
status=$(k -n "$VE_NS" get cachepurge hls -o json)
assert_eq "acknowledged by both nodes" "2/2" "$(jq -r .status.acknowledged <<<"$status")"
assert_eq "nothing pending" "0" "$(jq -r .status.pendingNodes <<<"$status")"
assert_eq "Failed=False" "False" "$(jq -r '.status.conditions[] | select(.type=="Failed") | .status' <<<"$status")"
removed=$(jq -r '.status.removed.disk' <<<"$status")
[ "$removed" -ge 6 ] || fail "the nodes removed $removed objects from disk, expected at least 6 (3 each, plus traffic)"
pass "removed from disk on both nodes: $removed objects (memory $(jq -r .status.removed.memory <<<"$status"))"
purged_event() { events_since "$since" "involvedObject.kind=CachePurge,involvedObject.namespace=$VE_NS,involvedObject.name=hls,reason=Purged" | grep '^Normal Purged '; }
wait_until "a Normal Event Purged on the CachePurge since it was created" 30 purged_event

for n in "$n1" "$n2"; do
  for p in "${objects[@]}"; do
    assert_eq "$n $p: the next request after the purge is a miss" miss "$(xcache "$n" "$p")"
    assert_match "$n $p: and the one after is a hit" '^hit-' "$(xcache "$n" "$p")"
  done
  assert_match "$n $outside (outside the prefix) still a hit" '^hit-' "$(xcache "$n" "$outside")"
  total=$(wc -l <"$tmp/codes-$n" || echo 0); bad=$(grep -vcx 200 "$tmp/codes-$n" || true)
  (( total > 0 )) || fail "$n: the client loop made no request during the purge"
  assert_eq "$n: every one of the $total requests during the purge answered 200" 0 "$bad"
  purged=$(curl -fsS "http://$(nip "$n"):$ADMIN_PORT/metrics" | awk '/^videoedge_cache_purged_total\{tier="disk"\}/ {print $2}')
  info "$n videoedge_cache_purged_total{tier=\"disk\"} $purged"
done
