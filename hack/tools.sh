#!/bin/bash
# Command-line tools built from the Go module proxy into $BIN_DIR (no release downloads needed):
#   kind                      sigs.k8s.io/kind            $KIND_VERSION
#   helm                      helm.sh/helm/v4 (or v3)     $HELM_VERSION
#   helm unittest (plugin)    helm-unittest               $HELM_UNITTEST_VERSION, in $HELM_PLUGINS_DIR/unittest
# `helm unittest` needs HELM_PLUGINS=$HELM_PLUGINS_DIR (the Makefile exports it). A tool that already
# reports the pinned version is kept, so a second run takes well under a second.
# kubectl comes from hack/k8s-binaries.sh (the same Kubernetes version as the clusters).
#   TOOLS="kind helm helm-unittest"   which ones (hack/kind-up.sh asks for kind only)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KIND_VERSION=${KIND_VERSION:-v0.33.0}
# Helm 4 is the current major line (Helm 3 gets security fixes only, until about a year after Helm 4's
# release in November 2025); charts with apiVersion v2 work with both. HELM_VERSION=v3.22.0 builds Helm 3.
HELM_VERSION=${HELM_VERSION:-v4.3.1}
HELM_UNITTEST_VERSION=${HELM_UNITTEST_VERSION:-v1.1.2}
HELM_PLUGINS_DIR=${HELM_PLUGINS_DIR:-$BIN_DIR/helm-plugins}
TOOLS=" ${TOOLS:-kind helm helm-unittest} "
want() { [[ $TOOLS == *" $1 "* ]]; }
need_cmd go jq
export CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} -trimpath"

# ---- kind
if ! want kind; then :
elif [ "$("$BIN_DIR/kind" version 2>/dev/null | awk '{print $2}')" = "$KIND_VERSION" ]; then
  log "kind $KIND_VERSION present"
else
  step kind-build env GOBIN="$BIN_DIR" go install -ldflags "-s -w" "sigs.k8s.io/kind@$KIND_VERSION"
fi

# ---- helm (stamp the version as helm's release build does, so `helm version` is right)
helm_mod="helm.sh/helm/${HELM_VERSION%%.*}"
if ! want helm; then :
elif [ "$("$BIN_DIR/helm" version --template '{{.Version}}' 2>/dev/null)" = "$HELM_VERSION" ]; then
  log "helm $HELM_VERSION present"
else
  log "building helm $HELM_VERSION (cold Go cache: about 5 min on 2 cores)"
  step helm-build env GOBIN="$BIN_DIR" go install \
    -ldflags "-s -w -X $helm_mod/internal/version.version=$HELM_VERSION -X $helm_mod/internal/version.gitTreeState=clean" \
    "$helm_mod/cmd/helm@$HELM_VERSION"
fi

# ---- helm-unittest: its go.mod has a replace directive, which `go install pkg@version` refuses,
# so it is built in a scratch module that requires it and repeats its replace lines.
build_unittest() {
  local d="$VIDEOEDGE_CACHE/build/helm-unittest" src p="$HELM_PLUGINS_DIR/unittest"
  rm -rf "$d"; mkdir -p "$d"; cd "$d"
  src=$(mod_dir "github.com/helm-unittest/helm-unittest@$HELM_UNITTEST_VERSION")
  { echo "module local/helm-unittest"; grep -E '^go ' "$src/go.mod"
    grep -E '^replace [^(]' "$src/go.mod" || true
    sed -n '/^replace (/,/^)/p' "$src/go.mod"; } >go.mod
  go get "github.com/helm-unittest/helm-unittest/cmd/helm-unittest@$HELM_UNITTEST_VERSION"
  mkdir -p "$p"
  go build -ldflags "-s -w" -o "$p/untt" github.com/helm-unittest/helm-unittest/cmd/helm-unittest
  # the upstream plugin.yaml downloads a release binary in an install hook: ours just runs the build
  cat >"$p/plugin.yaml" <<YAML
name: "unittest"
version: "${HELM_UNITTEST_VERSION#v}"
usage: "unittest for helm charts"
description: "helm-unittest $HELM_UNITTEST_VERSION, built from the Go module proxy by hack/tools.sh"
ignoreFlags: false
command: "\$HELM_PLUGIN_DIR/untt"
YAML
  cd /; rm -rf "$d"
}
export HELM_PLUGINS="$HELM_PLUGINS_DIR"
if ! want helm-unittest; then :
elif [ -x "$HELM_PLUGINS_DIR/unittest/untt" ] && grep -qx "version: \"${HELM_UNITTEST_VERSION#v}\"" "$HELM_PLUGINS_DIR/unittest/plugin.yaml" 2>/dev/null; then
  log "helm-unittest $HELM_UNITTEST_VERSION present"
else
  step helm-unittest-build build_unittest
fi

# ---- check what we have
if want kind; then
  [ "$("$BIN_DIR/kind" version | awk '{print $2}')" = "$KIND_VERSION" ] || die "kind does not report $KIND_VERSION"
fi
if want helm; then
  [ "$("$BIN_DIR/helm" version --template '{{.Version}}')" = "$HELM_VERSION" ] || die "helm does not report $HELM_VERSION"
fi
if want helm-unittest; then
  "$BIN_DIR/helm" unittest --help >/dev/null 2>&1 || die "'helm unittest' does not run (HELM_PLUGINS=$HELM_PLUGINS_DIR)"
fi
have=()
want kind && have+=("kind $KIND_VERSION")
want helm && have+=("helm $HELM_VERSION")
want helm-unittest && have+=("helm unittest $HELM_UNITTEST_VERSION (HELM_PLUGINS=$HELM_PLUGINS_DIR)")
log "in $BIN_DIR: $(IFS=,; echo "${have[*]}" | sed 's/,/, /g')"
