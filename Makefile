# VideoEdge: build, test, run. `make help` lists the targets.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

##@ General
# Settings: every one overridable, e.g. make test KUBE_VERSION=1.34.4
# Java 25: Temurin 25 on the build machines, openjdk-25 elsewhere.
JAVA_HOME ?= $(firstword $(wildcard /usr/lib/jvm/temurin-25-jdk-* /usr/lib/jvm/java-25-openjdk-* /usr/lib/jvm/jdk-25*))
export JAVA_HOME
MVN ?= ./mvnw
MVN_FLAGS ?= -B -ntp
BIN_DIR ?= $(CURDIR)/bin
export BIN_DIR
VIDEOEDGE_CACHE ?= $(HOME)/.cache/videoedge
export VIDEOEDGE_CACHE
KUBE_VERSION ?= 1.34.4
ETCD_VERSION ?= 3.6.5
export KUBE_VERSION ETCD_VERSION
KUBE_API_TEST_DIR ?= $(BIN_DIR)/kubeapitest

MVN_RUN = $(MVN) $(MVN_FLAGS) -Dkube.version=$(KUBE_VERSION) -Dkube.api.test.dir=$(KUBE_API_TEST_DIR) \
  -Dvideoedge.helm=$(BIN_DIR)/helm -Dvideoedge.helm.plugins=$(HELM_PLUGINS) -Dvideoedge.promtool=$(BIN_DIR)/promtool \
  -Dvideoedge.prometheus.crds.dir=$(VIDEOEDGE_CACHE)/prometheus-operator/crds

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make \033[36m<target>\033[0m\n"} \
	  /^[a-zA-Z0-9_-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } \
	  /^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

.PHONY: java
java:
	@[ -n "$(JAVA_HOME)" ] && [ -x "$(JAVA_HOME)/bin/java" ] || { echo "Java 25 not found under /usr/lib/jvm: install Temurin 25 or openjdk-25-jdk, or set JAVA_HOME" >&2; exit 1; }

##@ Build
.PHONY: build
build: java ## Compile and package every module (no tests)
	$(MVN_RUN) -DskipTests package

.PHONY: crds
crds: java ## Regenerate crds/ from the Java model (api/)
	$(MVN_RUN) -q -pl api -Pcrds -DskipTests process-test-classes

IMAGE_PREFIX ?= videoedge/
IMAGE_TAG ?= $(shell awk '/^appVersion:/ {gsub(/"/, "", $$2); print $$2}' charts/videoedge/Chart.yaml)
export IMAGE_PREFIX IMAGE_TAG

.PHONY: images
images: build ## Container images of operator, node agent and edge server (FROM debian:trixie-slim, built here when no registry answers)
	@hack/base-image.sh
	@hack/images.sh

.PHONY: manifests
manifests: tools ## Render the chart into deploy/videoedge.yaml (kubectl apply -f crds/ -f deploy/videoedge.yaml)
	@hack/manifests.sh

.PHONY: chart-docs
chart-docs: tools ## Generate the chart's values.schema.json and README.md from its values.yaml (helm-values-schema-json, helm-docs)
	@hack/chart-docs.sh

##@ Test
.PHONY: test
test: java deps k8s-binaries tools prometheus-crds crds ## Unit tests and real-component tests (*IT: kube-apiserver, network namespaces, loopback servers, the chart)
	$(MVN_RUN) verify

.PHONY: vm-test
vm-test: java ## Real-kernel tier: Debian's kernel under qemu (TCG) proves kernel TLS, the agent's module path (as root: a tap NIC; installs qemu with DEPS_SET=vm)
	@DEPS_SET=vm hack/deps.sh
	$(MVN_RUN) -q -Pvm -pl edge-server,node-tuning -am -DskipTests package
	hack/vm/vm-test.sh

.PHONY: tuning-effect
tuning-effect: java ## What the seed's tuning buys, counted on Debian's kernel under qemu: 200 slow clients, socket memory and NET_RX spread untuned vs tuned (as root; ~6 min; not in CI)
	@DEPS_SET=vm hack/deps.sh
	$(MVN_RUN) -q -pl edge-server,node-tuning -am -DskipTests package
	hack/vm/tuning-effect.sh

.PHONY: test-unit
test-unit: java ## Unit tests only (*Test)
	$(MVN_RUN) test

GENERATED := crds charts/videoedge/files/crds deploy charts/videoedge/values.schema.json charts/videoedge/README.md

.PHONY: fmt
fmt: java ## Format the Java sources of every module (palantir-java-format through spotless)
	$(MVN) $(MVN_FLAGS) -q spotless:apply

.PHONY: verify
verify: crds manifests chart-docs ## Fail if the Java sources are not formatted (make fmt) or the committed generated files are stale
	@$(MVN) $(MVN_FLAGS) -q spotless:check || { echo "Java sources are not formatted: run 'make fmt' and commit the result" >&2; exit 1; }
	@if ! git diff --quiet -- $(GENERATED) || [ -n "$$(git ls-files --others --exclude-standard -- $(GENERATED))" ]; then \
	  git --no-pager diff --stat -- $(GENERATED); git ls-files --others --exclude-standard -- $(GENERATED); \
	  echo "generated files are stale: run 'make crds', 'make manifests' and 'make chart-docs' and commit the result" >&2; exit 1; fi
	@echo "generated files are up to date"

# BENCH_* settings (edge-server/README.md, "Benchmark") reach the script from the environment or the
# command line; its own defaults apply otherwise (BENCH_QUICK=1 picks shorter ones)
.PHONY: bench
bench: java ## Benchmark the edge server against nginx with wrk (needs DEPS_SET=all make deps); prints ratios, never fails CI
	$(MVN_RUN) -q -pl edge-server -am -DskipTests package
	edge-server/scripts/bench.sh

SCALE_NODES ?= 100,1000
export SCALE_NODES
.PHONY: scale-bench
scale-bench: java k8s-binaries crds manifests ## The operator at scale: per N in SCALE_NODES (100,1000; 5000 takes ~15 min), a fresh kube-apiserver + etcd, N simulated nodes, agents and kubelets, the operator jar with the chart's environment and memory limit (deploy/videoedge.yaml); prints the table (operator/target/scale-bench/results.md)
	$(MVN_RUN) -pl operator -am verify -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dfailsafe.failIfNoSpecifiedTests=false -Dit.test=ScaleBench -Dscale.nodes=$(SCALE_NODES)
	@cat operator/target/scale-bench/results.md

.PHONY: chaos
chaos: java deps ## Hostile clients and a faulty origin against the real edge server on loopback; prints a table of figures per scenario, fails on a bad verdict (CHAOS_* sizes: edge-server/README.md, "Reliability")
	$(MVN_RUN) -q -Pchaos -pl edge-server -am -DskipTests package
	edge-server/scripts/chaos.sh ChaosMain

SOAK_DURATION ?= 10m
export SOAK_DURATION
.PHONY: soak
soak: java deps ## A long mixed run (HTTP/HTTPS, manifests/segments, hits/misses, a config reload) sampling the server every 15 s; fails on drift (SOAK_DURATION=10m, e.g. 4h)
	$(MVN_RUN) -q -Pchaos -pl edge-server -am -DskipTests package
	edge-server/scripts/chaos.sh SoakMain

##@ Run
.PHONY: run
run: java ## Run the edge server on localhost with a generated sample set and print URLs to try (EDGE_HTTP_PORT, EDGE_HTTPS_PORT, EDGE_ADMIN_PORT)
	$(MVN_RUN) -q -pl edge-server -am -DskipTests package
	edge-server/scripts/run-local.sh

##@ Tools (built from Debian packages and the Go module proxy; no registry or release download needed)
.PHONY: deps
deps: ## Install missing Debian packages the tests use (as root or with sudo)
	@hack/deps.sh

.PHONY: k8s-binaries
k8s-binaries: ## kube-apiserver, etcd, kubectl for the *IT tier, built from source when missing
	@hack/k8s-binaries.sh

HELM_PLUGINS ?= $(BIN_DIR)/helm-plugins
export HELM_PLUGINS

.PHONY: tools
tools: ## kind, helm, the helm unittest plugin, promtool, helm-docs and helm-values-schema-json into ./bin, built from the Go module proxy when missing
	@hack/tools.sh

.PHONY: docker-up
docker-up: ## Start a Docker daemon when none answers (with the runc wrapper where privileged containers need it), then docker-check
	@hack/docker-up.sh

.PHONY: docker-check
docker-check: ## Check that Docker can run kind's privileged node containers (explains the fix if not)
	@hack/docker-check.sh

.PHONY: base-image
base-image: ## debian:trixie-slim for our Dockerfiles: pulled, or built with debootstrap when no registry answers
	@hack/base-image.sh

.PHONY: kind-node-image
kind-node-image: ## kind node image kindest/node:v1.34.4: pulled, or built offline (Go module proxy + Debian) when no registry answers
	@hack/kind-node-image.sh

.PHONY: prometheus-crds
prometheus-crds: ## The monitoring.coreos.com CRDs only (from the Prometheus Operator's Go module; no Docker)
	@PROM_PARTS=crds hack/prometheus-stack.sh >/dev/null

.PHONY: prometheus-stack
prometheus-stack: ## Prometheus Operator + Prometheus images (pulled or built offline) and the monitoring.coreos.com CRDs
	@hack/prometheus-stack.sh

.PHONY: clean
clean: java ## Remove build output (keeps ./bin and caches)
	$(MVN_RUN) -q clean

##@ Cluster (kind; on a machine without a registry the node image is built here)
KIND_CLUSTER ?= videoedge
KIND_KUBECONFIG ?= $(VIDEOEDGE_CACHE)/kind/$(KIND_CLUSTER)/kubeconfig
export KIND_CLUSTER KIND_KUBECONFIG

.PHONY: kind-up
kind-up: ## Create (or reuse) the kind cluster KIND_CLUSTER (videoedge) and wait until it is Ready; USE_EXISTING_CLUSTER=1 never creates
	@hack/kind-up.sh

.PHONY: prometheus-up
prometheus-up: ## Install the Prometheus Operator into the kind cluster (no registry needed); PROM_CHECK=1 also proves a scrape
	@hack/prometheus-up.sh

.PHONY: kind-down
kind-down: ## Delete the kind cluster KIND_CLUSTER (kept with USE_EXISTING_CLUSTER=1)
	@hack/kind-down.sh

##@ End-to-end (kind)
E2E_SUITES ?= single fleet
.PHONY: e2e
e2e: java ## End-to-end tests on kind: the single-node suite (e2e/scenarios) then the multi-node one (e2e/fleet: 1 control plane + 2 edge workers); E2E_SUITES="single fleet"; artifacts in _artifacts/ on failure
	@build=$${E2E_BUILD:-1}; for suite in $(E2E_SUITES); do \
	  case $$suite in \
	    single) E2E_BUILD=$$build e2e/run.sh; build=0 ;; \
	    fleet) E2E_BUILD=$$build e2e/fleet/run.sh; build=0 ;; \
	    *) echo "unknown e2e suite '$$suite' (E2E_SUITES: single fleet)" >&2; exit 2 ;; \
	  esac; \
	done

.PHONY: demo
demo: java ## kind cluster with VideoEdge, Prometheus and an example VideoEdge serving sample content; prints what to try
	@e2e/demo.sh up

.PHONY: demo-down
demo-down: ## Remove the demo: the VideoEdge first (the node's originals restored), then the cluster (kept with USE_EXISTING_CLUSTER=1)
	@e2e/demo.sh down
