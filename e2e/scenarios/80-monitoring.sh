#!/usr/bin/env bash
# Monitoring for real: a Prometheus made by the Prometheus Operator (e2e/manifests/prometheus.yaml)
# scrapes what the chart declares (operator ServiceMonitor, agent PodMonitor) and what the operator
# creates (edge server PodMonitor), selecting them by the label the chart's monitoring.labels gives
# (prometheus=e2e, as kube-prometheus-stack selects by its release label); all three targets are up,
# the edge server's throughput is a series with data after some requests, the chart's alert rules are
# loaded and every dashboard panel's query returns data.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
scenario "80 monitoring: Prometheus scrapes the edge server, the agent and the operator"
[ "$E2E_MONITORING" = 1 ] || skip "E2E_MONITORING=$E2E_MONITORING: no Prometheus Operator installed, nothing checked"
# E2E_MONITORING=1: the prometheus-operator stage installed the Prometheus Operator, so its CRDs must be here
monitoring_present || fail "E2E_MONITORING=1 but the monitoring.coreos.com CRDs are missing (podmonitors.monitoring.coreos.com): the prometheus-operator stage should have installed them"
ip=$(node_ip)

assert_eq "PodMonitor created by the operator, with the chart's monitoring.labels" \
  "podmonitor.monitoring.coreos.com/$VE_NAME-edge-server" \
  "$(k -n "$VE_NS" get podmonitor -l prometheus=e2e -o name)"
pools=("podMonitor/$VE_NS/$VE_NAME-edge-server/0" "podMonitor/$CHART_NS/$RELEASE-node-agent/0" "serviceMonitor/$CHART_NS/$RELEASE-operator/0")
for pool in "${pools[@]}"; do
  up() {
    prom_api targets | jq -e --arg p "$pool" '[.data.activeTargets[] | select(.scrapePool == $p)] | length > 0 and all(.health == "up")' >/dev/null \
      && return 0
    prom_api status/config | jq -r .data.yaml | grep -qF "job_name: $pool" || { echo "job $pool not in the loaded config"; return 1; }
    prom_api targets | jq -c --arg p "$pool" '[.data.activeTargets[] | select(.scrapePool == $p) | {health, lastError, scrapeUrl}]'
    return 1
  }
  wait_until "target $pool up" "$E2E_TIMEOUT" up
  info "$(prom_api targets | jq -r --arg p "$pool" '.data.activeTargets[] | select(.scrapePool == $p) | "\(.scrapeUrl) \(.health)"')"
done

# throughput: 18 MiB of requests, then wait until Prometheus has scraped them (the stored counter of the
# serving pod grew by at least that much: by pod, since a replaced pod's series restarts from 0 while the
# old one is still the latest sample for a while) and computes a rate > 0
pod=$(edge_pods -o jsonpath='{.items[0].metadata.name}')
q="sum(rate(videoedge_http_response_body_bytes_total{pod=\"$pod\"}[1m]))"
promq() { prom_api "query?query=$(jq -rn --arg q "$1" '$q | @uri')"; }
total() { promq "sum(videoedge_http_response_body_bytes_total{pod=\"$pod\"})" | jq -r '.data.result[0].value[1] // "0"'; }
t0=$(total)
curl -sS --max-time 30 -o /dev/null "http://$ip:$HTTP_PORT/bench/seg-16m.m4s"
curl -sS --max-time 30 --cacert "$(ca_file)" -o /dev/null "https://$ip:$HTTPS_PORT/bench/seg-2m.m4s"
info "requested 16 MiB over HTTP and 2 MiB over HTTPS from pod $pod; Prometheus had $t0 bytes of it"
scraped() {
  local t
  # a little traffic on every check, so that two scrapes of this pod always differ
  curl -sS --max-time 10 -o /dev/null "http://$ip:$HTTP_PORT/hls/seg-00002.m4s"
  t=$(total)
  awk -v a="$t" -v b="$t0" 'BEGIN {exit !(a - b >= 18 * 1048576)}' || { echo "bytes in Prometheus: $t (before: $t0)"; return 1; }
  promq "$q" | jq -e '.data.result[0].value[1] | tonumber > 0' >/dev/null
}
wait_until "Prometheus has the 18 MiB and $q > 0" "$E2E_TIMEOUT" scraped
r=$(promq "$q" | jq -r '.data.result[0].value[1]')
pass "edge throughput seen by Prometheus: $(awk -v r="$r" 'BEGIN {printf "%.2f MiB/s", r / 1048576}') (rate over 1m)"
byvia=$(promq "sum by (via) (videoedge_http_response_body_bytes_total{pod=\"$pod\"})" \
  | jq -r '.data.result[] | "\(.metric.via)=\(.value[1])"' | tr '\n' ' ')
info "bytes by path: $byvia"
ktls_kernel=$(edge_metrics | sed -n 's/^videoedge_ktls_info{kernel="\([a-z]*\)".*/\1/p')
case "$ktls_kernel" in
  available | unavailable) ;;
  *) fail "videoedge_ktls_info missing or its kernel label unknown: '$ktls_kernel'" ;;
esac
if [ "$ktls_kernel" = unavailable ]; then
  assert_match "bytes sent by sendfile (HTTP) and tls_copy (HTTPS, OpenSSL) are series" "sendfile=[1-9].*tls_copy=[1-9]" "$byvia"
else
  assert_match "bytes sent by sendfile (HTTP, and HTTPS with kernel TLS) are a series" "sendfile=[1-9]" "$byvia"
fi

# the agent's and the operator's own series
one() { promq "$1" | jq -r '.data.result | length'; }
n=$(one 'videoedge_agent_settings'); (( n > 0 )) || fail "no videoedge_agent_settings series"
pass "agent series videoedge_agent_settings: $n (by state: $(promq videoedge_agent_settings | jq -r '[.data.result[] | "\(.metric.state)=\(.value[1])"] | join(" ")'))"
n=$(one 'up{job=~".*operator.*"} == 1'); (( n > 0 )) || fail "operator target not up in a query"
pass "operator scraped: up{job=~\".*operator.*\"} == 1 ($n)"
# the operator's VideoEdge series keep the VideoEdge's namespace (ServiceMonitor honorLabels), which the
# alerts name; without it Prometheus would rename it exported_namespace and put the operator's there
ve_series() { (( $(one "videoedge_nodes{namespace=\"$VE_NS\",videoedge=\"$VE_NAME\",state=\"selected\"}") > 0 )); }
wait_until "operator series videoedge_nodes{namespace=\"$VE_NS\",videoedge=\"$VE_NAME\"}" "$E2E_TIMEOUT" ve_series
# the chart's PrometheusRule is loaded
groups=$(prom_api rules | jq -r '[.data.groups[].name] | join(" ")')
[ -n "$groups" ] || fail "no rule groups loaded (the chart's PrometheusRule)"
pass "rule groups loaded: $groups"
for g in videoedge.edge-server videoedge.node-tuning videoedge.status; do
  [[ " $groups " == *" $g "* ]] || fail "rule group $g not loaded (loaded: $groups)"
done

# every panel of the chart's dashboard shows data: each query returns at least one series with a
# number (not NaN: a ratio or quantile over nothing). The cache and origin panels need a miss and a hit
# on an object no scenario fetched before (the server exposes those series at 0 from its start, so the
# first miss is an increase Prometheus sees), the TLS panel a session in the last minute; every check
# adds a TLS session and a cache hit.
for f in vod/hls/seg-00003.m4s vod/hls/seg-00003.m4s; do
  curl -sS --max-time 20 -o /dev/null "http://$ip:$HTTP_PORT/$f"
done
dashboard="$ROOT/charts/videoedge/files/dashboards/videoedge.json"
panels=$(jq -r '.panels[] | .title as $t | .targets[]? | "\($t)\t\(.expr)"' "$dashboard")
[ "$(wc -l <<<"$panels")" -ge 10 ] || fail "the dashboard has $(wc -l <<<"$panels") queries: is $dashboard the chart's?"
while IFS=$'\t' read -r title expr; do
  has_data() {
    curl -sS --max-time 10 --cacert "$(ca_file)" -o /dev/null "https://$ip:$HTTPS_PORT/hls/seg-00001.m4s"
    curl -sS --max-time 10 -o /dev/null "http://$ip:$HTTP_PORT/vod/hls/seg-00003.m4s"
    local r
    r=$(promq "$expr")
    jq -e '.data.result | length > 0 and all(.value[1] != "NaN")' >/dev/null <<<"$r" \
      || { echo "result: $(jq -c '.data.result' <<<"$r" | cut -c1-300)"; return 1; }
  }
  wait_until "dashboard panel '$title' has data: $expr" "$E2E_TIMEOUT" has_data
done <<<"$panels"

firing=$(prom_api alerts | jq -r '[.data.alerts[] | select(.state == "firing") | .labels.alertname] | unique | join(" ")')
info "alerts firing: ${firing:-none}"
