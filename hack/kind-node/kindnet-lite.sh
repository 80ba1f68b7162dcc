#!/bin/bash
# kindnet-lite: the pod network of the offline kind node image, standing in for kind's kindnetd
# (whose Go modules the Go module proxy does not serve). One instance per node (DaemonSet, host network):
#   - writes a bridge + host-local CNI config for this node's podCIDR (containerd picks it up; until it
#     exists the node is NotReady),
#   - routes every other node's podCIDR via that node's InternalIP (multi-node clusters),
#   - masquerades traffic from pods to anything outside the pod subnet.
# IPv4 only, no NetworkPolicy. Talks to the API server with the node's kubectl (mounted from the host)
# and its ServiceAccount token; reconciles every 10 seconds.
set -u
: "${NODE_NAME:?}" "${POD_SUBNET:?}"
kubectl=/host/usr/bin/kubectl
sa=/var/run/secrets/kubernetes.io/serviceaccount
# kind patches CONTROL_PLANE_ENDPOINT in: the Service IP needs kube-proxy, which may not run yet
server="https://${CONTROL_PLANE_ENDPOINT:-$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT}"
conf=/host/etc/cni/net.d/10-kindnet-lite.conflist
nodes_jsonpath='{range .items[*]}{.metadata.name} {.spec.podCIDR} {.status.addresses[?(@.type=="InternalIP")].address}{"\n"}{end}'

cni_conf() { # podCIDR
  cat <<JSON
{
  "cniVersion": "1.0.0",
  "name": "kindnet-lite",
  "plugins": [
    {"type": "bridge", "bridge": "kind-br0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$1"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
JSON
}

while true; do
  if nodes=$($kubectl --server "$server" --token "$(cat $sa/token)" --certificate-authority $sa/ca.crt \
       get nodes -o jsonpath="$nodes_jsonpath" 2>&1); then
    while read -r name cidr ip; do
      [ -n "$cidr" ] && [ -n "$ip" ] || continue
      if [ "$name" = "$NODE_NAME" ]; then
        want=$(cni_conf "$cidr")
        if [ "$(cat "$conf" 2>/dev/null)" != "$want" ]; then
          printf '%s\n' "$want" >"$conf.tmp" && mv "$conf.tmp" "$conf" && echo "CNI config for $cidr written"
        fi
      elif ! ip route show "$cidr" | grep -q "via $ip "; then
        ip route replace "$cidr" via "$ip" && echo "route $cidr via $ip ($name)"
      fi
    done <<<"$nodes"
  else
    echo "cannot list nodes: $nodes"
  fi
  iptables -t nat -C POSTROUTING -s "$POD_SUBNET" ! -d "$POD_SUBNET" -j MASQUERADE 2>/dev/null \
    || iptables -t nat -A POSTROUTING -s "$POD_SUBNET" ! -d "$POD_SUBNET" -j MASQUERADE
  # every second until this node's CNI config exists (the node is NotReady until then), then every 10
  if [ -s "$conf" ]; then sleep 10; else sleep 1; fi
done
