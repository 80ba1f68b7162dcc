#!/usr/bin/env bash
# Monitoring for real: a Prometheus made by the Prometheus Operator (e2e/manifests/prometheus.yaml)
# scrapes what the chart declares (operator ServiceMonitor, agent PodMonitor) and what the operator
# creates (edge server PodMonitor); all three targets are up, the edge server's throughput is a series
# with data after some requests, and the chart's alert rules are loaded.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
if [ "$E2E_MONITORING" != 1 ] || ! monitoring_present; then
  scenario "80 monitoring: skipped (E2E_MONITORING=0 or no Prometheus Operator)"
  exit 0
fi
scenario "80 monitoring: Prometheus scrapes the edge server, the agent and the operator"
ip=$(node_ip)

assert_eq "PodMonitor created by the operator" "podmonitor.monitoring.coreos.com/$VE_NAME-edge-server" \
  "$(k -n "$VE_NS" get podmonitor "$VE_NAME-edge-server" -o name)"
pools=("podMonitor/$VE_NS/$VE_NAME-edge-server/0" "podMonitor/$CHART_NS/$RELEASE-node-agent/0" "serviceMonitor/$CHART_NS/$RELEASE-operator/0")
for pool in "${pools[@]}"; do
  up() {
    prom_api targets | jq -e --arg p "$pool" '[.data.activeTargets[] | select(.scrapePool == $p)] | length > 0 and all(.health == "up")' >/dev/null \
      || { prom_api targets | jq -c --arg p "$pool" '[.data.activeTargets[] | select(.scrapePool == $p) | {health, lastError, scrapeUrl}]'; return 1; }
  }
  wait_until "target $pool up" "$E2E_TIMEOUT" up
  info "$(prom_api targets | jq -r --arg p "$pool" '.data.activeTargets[] | select(.scrapePool == $p) | "\(.scrapeUrl) \(.health)"')"
done

# throughput: requests while waiting until Prometheus computes a rate > 0 from two scrapes
q='sum(rate(videoedge_http_response_body_bytes_total[1m]))'
throughput() {
  curl -sS --max-time 20 -o /dev/null "http://$ip:$HTTP_PORT/bench/seg-16m.m4s"
  curl -sS --max-time 20 --cacert "$STATE_DIR/tls.crt" -o /dev/null "https://$ip:$HTTPS_PORT/bench/seg-2m.m4s"
  prom_api "query?query=$(jq -rn --arg q "$q" '$q | @uri')" \
    | jq -e '.data.result[0].value[1] | tonumber > 0' >/dev/null
}
ca_file >/dev/null
wait_until "Prometheus query $q > 0" "$E2E_TIMEOUT" throughput
r=$(prom_api "query?query=$(jq -rn --arg q "$q" '$q | @uri')" | jq -r '.data.result[0].value[1]')
pass "edge throughput seen by Prometheus: $(awk -v r="$r" 'BEGIN {printf "%.1f MiB/s", r / 1048576}') (rate over 1m)"
byvia=$(prom_api "query?query=$(jq -rn '"sum by (via, instance) (videoedge_http_response_body_bytes_total)" | @uri')" \
  | jq -r '.data.result[] | "\(.metric.via)=\(.value[1])"' | tr '\n' ' ')
info "bytes by path: $byvia"
assert_contains "sendfile and tls_copy series" "sendfile=" "$byvia"

# the agent's and the operator's own series
one() { prom_api "query?query=$(jq -rn --arg q "$1" '$q | @uri')" | jq -r '.data.result | length'; }
n=$(one 'videoedge_agent_settings'); (( n > 0 )) || fail "no videoedge_agent_settings series"
pass "agent series videoedge_agent_settings: $n (by state: $(prom_api "query?query=$(jq -rn '"videoedge_agent_settings" | @uri')" | jq -r '[.data.result[] | "\(.metric.state)=\(.value[1])"] | join(" ")'))"
n=$(one 'up{job=~".*operator.*"} == 1'); (( n > 0 )) || fail "operator target not up in a query"
pass "operator scraped: up{job=~\".*operator.*\"} == 1 ($n)"
# the chart's PrometheusRule is loaded
groups=$(prom_api rules | jq -r '[.data.groups[].name] | join(" ")')
[ -n "$groups" ] || fail "no rule groups loaded (the chart's PrometheusRule)"
pass "rule groups loaded: $groups"
firing=$(prom_api alerts | jq -r '[.data.alerts[] | select(.state == "firing") | .labels.alertname] | unique | join(" ")')
info "alerts firing: ${firing:-none}"
