# Debian + the network tools kube-proxy and kindnet-lite run with (iptables with both the nft and
# legacy back ends, nft, conntrack, ip). hack/kind-node-image.sh adds the kube-proxy binary, or the
# kindnet-lite script, in one more layer each, so both images share these layers in the node.
ARG BASE=debian:trixie-slim
FROM ${BASE}
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends iptables nftables conntrack iproute2 \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/* /usr/share/doc/* /usr/share/man/*
