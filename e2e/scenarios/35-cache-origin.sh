#!/usr/bin/env bash
# Objects the node's contentPath does not have come from the origin (server.origin.url) through the
# two cache levels: the first request is a miss that fills the cache, the next ones are hits, the bytes
# are the origin's, and the disk cache files are written into the hostPath server.cache.disk.path by
# the non-root server (the operator's init container hands the root-created directory to it).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
ip=$(node_ip)
scenario "35 cache in front of the origin: miss, then hit; disk cache on the node"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
origin_ip=$(k -n "$VE_NS" get svc origin -o jsonpath='{.spec.clusterIP}')
info "origin: $(ve_jsonpath '{.spec.server.origin.url}') (Service $origin_ip:8080)"

xcache() { sed -n 's/^[Xx]-[Cc]ache: //p' "$1" | tr -d '\r'; }
# the run starts with an empty disk cache (run.sh removes the node's directory before install)
f=vod/hls/seg-00001.m4s
want_sha=$(node_exec curl -fsS --max-time 10 "http://$origin_ip:8080/$f" | sha256sum | cut -d' ' -f1)

out=$(curl -sS --max-time 20 -D "$tmp/h1" -o "$tmp/b1" -w '%{http_code}' "http://$ip:$HTTP_PORT/$f")
assert_eq "GET /$f (not in contentPath): status" 200 "$out"
assert_eq "first GET X-Cache (filled from the origin)" miss "$(xcache "$tmp/h1")"
assert_eq "body = the origin's bytes" "$want_sha" "$(sha256sum <"$tmp/b1" | cut -d' ' -f1)"
out=$(curl -sS --max-time 20 -D "$tmp/h2" -o "$tmp/b2" -w '%{http_code}' "http://$ip:$HTTP_PORT/$f")
assert_eq "second GET: status" 200 "$out"
assert_match "second GET X-Cache (served from the cache)" '^hit-(memory|disk)$' "$(xcache "$tmp/h2")"
assert_eq "cached body = the origin's bytes" "$want_sha" "$(sha256sum <"$tmp/b2" | cut -d' ' -f1)"
out=$(curl -sS --max-time 20 --cacert "$(ca_file)" -D "$tmp/h3" -o "$tmp/b3" -w '%{http_code}' -r 1000-1999 "https://$ip:$HTTPS_PORT/$f")
assert_eq "Range over HTTPS: status" 206 "$out"
assert_match "Range over HTTPS: X-Cache (served from the cache)" '^hit-(memory|disk)$' "$(xcache "$tmp/h3")"
assert_eq "Range over HTTPS: bytes 1000-1999 of the origin's" "$(head -c 2000 "$tmp/b1" | tail -c 1000 | sha256sum | cut -d' ' -f1)" \
  "$(sha256sum <"$tmp/b3" | cut -d' ' -f1)"
assert_eq "404 from the origin is a 404" 404 "$(curl -sS --max-time 10 -o /dev/null -w '%{http_code}' "http://$ip:$HTTP_PORT/vod/none.m4s")"

# the disk tier on the node: the hostPath belongs to the server's user, objects are files in it
assert_eq "owner of the node's /var/cache/videoedge (uid)" 65532 "$(node_exec stat -c %u /var/cache/videoedge)"
n=$(node_exec find /var/cache/videoedge/data -name '*.obj' -user 65532 | wc -l)
(( n >= 1 )) || fail "no disk cache objects under the node's /var/cache/videoedge/data"
pass "disk cache objects on the node, written by uid 65532: $n"
m=$(edge_metrics)
info "$(grep -E '^videoedge_cache_(lookups_total|responses_total|disk_entries|memory_entries)' <<<"$m" | tr '\n' ' ')"
hits=$(awk '/^videoedge_cache_lookups_total\{.*result="hit"/ {s += $2} END {print s + 0}' <<<"$m")
(( ${hits%.*} >= 1 )) || fail "videoedge_cache_lookups_total{result=hit} is $hits"
pass "videoedge_cache_lookups_total{result=\"hit\"}: $hits"

# A memory hit of 256 KiB or more on a plain connection goes out with sendfile from the disk tier's
# file while the page cache holds it. The pod runs under the runtime's default seccomp profile: its
# start-up log says how it can ask the page cache (cachestat, else mincore), and the bytes of such a hit
# are counted under via="sendfile", none under via="memory" (a copy from the off-heap memory tier).
pod=$(edge_pods -o jsonpath='{.items[0].metadata.name}')
check=$(k -n "$VE_NS" logs "$pod" -c edge-server --tail=-1 | jq -Rr 'fromjson? | .kvpList[]? | .pageCacheCheck? // empty' | tail -1)
# cachestat(2) is Linux 6.5+, and kind's containerd (1.7.24) allows it under its default seccomp profile
# (edge-server/README.md): cachestat on a kernel from 6.5 (kind's nodes run this machine's), mincore below
kernel=$(node_exec uname -r)
IFS=. read -r kmajor kminor _ <<<"$kernel"
kminor=${kminor%%[!0-9]*}
if (( kmajor > 6 || (kmajor == 6 && kminor >= 5) )); then want_check=cachestat; else want_check=mincore; fi
assert_eq "the server can ask the page cache (start-up log pageCacheCheck; kernel $kernel: $want_check)" "$want_check" "$check"
big=vod/mp4/clip.mp4
size=$(node_exec curl -fsS --max-time 10 "http://$origin_ip:8080/$big" | wc -c)
(( size >= 262144 )) || fail "/$big is $size bytes, under the 256 KiB of a page-cache memory hit"
get_big() { curl -sS --max-time 20 -D "$tmp/hb" -o "$tmp/bb" "http://$ip:$HTTP_PORT/$big" && xcache "$tmp/hb"; }
assert_eq "GET /$big: a miss" miss "$(get_big)"
assert_eq "GET /$big again: from disk (a large object enters memory on its second request)" hit-disk "$(get_big)"
memory_hit() { local x; x=$(get_big); echo "X-Cache: $x"; [ "$x" = hit-memory ]; }
wait_until "GET /$big: a memory hit" "$E2E_TIMEOUT" memory_hit
# (fails, saying so, when the series is absent: "" - "" would count as 0)
body_bytes() {
  edge_metrics | awk -v v="via=\"$1\"" 'index($0, "videoedge_http_response_body_bytes_total{" v "}") == 1 {printf "%.0f\n", $2; found = 1}
    END {if (!found) {print "no videoedge_http_response_body_bytes_total{" v "} in the metrics" > "/dev/stderr"; exit 1}}'
}
# a response's last bytes are counted after the client may have them: wait for the counters to stop
settled() { local a b; a=$(body_bytes sendfile) && sleep 1 && b=$(body_bytes sendfile) && echo "$a -> $b" && [ "$a" = "$b" ]; }
wait_until "body byte counters settled" 20 settled
sent0=$(body_bytes sendfile) || fail "videoedge_http_response_body_bytes_total{via=\"sendfile\"} missing"
copied0=$(body_bytes memory) || fail "videoedge_http_response_body_bytes_total{via=\"memory\"} missing"
assert_eq "memory hit: X-Cache" hit-memory "$(get_big)"
assert_eq "memory hit: the origin's bytes" "$(node_exec curl -fsS --max-time 10 "http://$origin_ip:8080/$big" | sha256sum | cut -d' ' -f1)" \
  "$(sha256sum <"$tmp/bb" | cut -d' ' -f1)"
sendfile_delta() { awk -v a="$(body_bytes sendfile)" -v b="$sent0" -v n="$size" 'BEGIN {d = a - b; print d; exit !(d == n)}'; }
wait_until "the memory hit's $size bytes counted under via=\"sendfile\" (from the page cache)" 20 sendfile_delta
copied1=$(body_bytes memory) || fail "videoedge_http_response_body_bytes_total{via=\"memory\"} missing"
assert_eq "bytes copied from the memory tier for it (via=\"memory\")" 0 "$(awk -v a="$copied1" -v b="$copied0" 'BEGIN {print a - b}')"
