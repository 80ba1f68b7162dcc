#!/usr/bin/env bash
# Session tickets under keys both nodes share (tls.sessionTickets): the operator made the Secret
# fleet-ticket-keys (one key in effect, owned by the VideoEdge), each pod mounts it; a TLS 1.2 and a
# TLS 1.3 session from one worker resume on the other (openssl s_client, -sess_out / -sess_in). A key
# put into the Secret for a time a minute ahead is taken by both servers: new tickets of either node
# are under it, and a session from before still resumes on the other node (the previous key decrypts).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
scenario "f35 TLS sessions resume on the other node: ticket keys shared through the operator's Secret"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
read -r n1 n2 <<<"$(fleet_nodes)"
secret=$VE_NAME-ticket-keys
keys=$(k -n "$VE_NS" get secret "$secret" -o json)
assert_eq "Secret $secret owned by the VideoEdge" "$(ve_jsonpath '{.metadata.uid}')" \
  "$(jq -r '.metadata.ownerReferences[0].uid' <<<"$keys")"
assert_match "its keys: t<unix seconds>" '^t[0-9]+$' "$(jq -r '.data | keys[]' <<<"$keys" | head -1)"
printf 'GET /index.m3u8 HTTP/1.1\r\nHost: fleet\r\nConnection: close\r\n\r\n' >"$tmp/req"
# s_client NODE ARGS...: one HTTPS request to NODE's server; prints "New|Reused, TLSv1.x" and the status line
s_client() {
  local n=$1 out; shift
  out=$(openssl s_client -connect "$(nip "$n"):$HTTPS_PORT" -servername fleet.videoedge.test -ign_eof "$@" <"$tmp/req" 2>&1)
  echo "$(grep -Eo '^(New|Reused), TLSv1\.[23]' <<<"$out" | head -1) $(grep -Eo '^HTTP/1\.1 [0-9]+' <<<"$out" | head -1)"
}
# the name (first 16 bytes, hex) of the key a saved session's ticket is under
ticket_key() {
  openssl sess_id -in "$1" -noout -text | awk '/TLS session ticket:/ {getline; sub(/^ *[0-9a-f]+ - /, ""); print substr($0, 1, 47)}' \
    | tr -d ' -'
}
for proto in -tls1_2 -tls1_3; do
  assert_match "$n1 $proto: a new session, served" "^New, .*HTTP/1.1 200" "$(s_client "$n1" "$proto" -sess_out "$tmp/s$proto.pem")"
  assert_match "$n1's $proto session resumes on $n2" "^Reused, .*HTTP/1.1 200" "$(s_client "$n2" "$proto" -sess_in "$tmp/s$proto.pem")"
done

# a key for a minute from now, as the operator adds its successors (ahead of their time)
at=$(( $(date +%s) + 60 ))
key=$(openssl rand 48 | base64 -w0)
k -n "$VE_NS" patch secret "$secret" --type merge -p "{\"data\":{\"t$at\":\"$key\"}}" >/dev/null
want=$(base64 -d <<<"$key" | head -c 16 | od -An -tx1 | tr -d ' \n')
under_new_key() { # under_new_key NODE: a new TLS 1.2 ticket from NODE is under the added key
  s_client "$1" -tls1_2 -sess_out "$tmp/new-$1.pem" >/dev/null
  local got; got=$(ticket_key "$tmp/new-$1.pem")
  [ "$got" = "$want" ] || { echo "ticket under $got, not yet $want"; return 1; }
}
for n in "$n1" "$n2"; do
  wait_until "$n: new tickets under the key of t$at (after its time: $(date -d "@$at" +%T))" "$E2E_TIMEOUT" under_new_key "$n"
done
info "both nodes switched by $(date +%T)"
assert_match "a ticket under the new key from $n1 resumes on $n2" "^Reused, .*HTTP/1.1 200" \
  "$(s_client "$n2" -tls1_2 -sess_in "$tmp/new-$n1.pem")"
assert_match "a ticket from before (previous key) still resumes on $n2" "^Reused, .*HTTP/1.1 200" \
  "$(s_client "$n2" -tls1_2 -sess_in "$tmp/s-tls1_2.pem")"
