#!/bin/bash
# Command-line tools built from the Go module proxy into $BIN_DIR (no release downloads needed):
#   kind                      sigs.k8s.io/kind            $KIND_VERSION
#   helm                      helm.sh/helm/v4 (or v3)     $HELM_VERSION
#   helm unittest (plugin)    helm-unittest               $HELM_UNITTEST_VERSION, in $HELM_PLUGINS_DIR/unittest
#   promtool                  github.com/prometheus/prometheus  $PROMETHEUS_VERSION (hack/prometheus-stack.sh's)
#   helm-docs                 github.com/norwoodj/helm-docs     $HELM_DOCS_VERSION (the chart's README)
#   helm-values-schema-json   github.com/losisin/helm-values-schema-json  $HELM_SCHEMA_VERSION (values.schema.json)
# `helm unittest` needs HELM_PLUGINS=$HELM_PLUGINS_DIR (the Makefile exports it). A tool that already
# reports the pinned version is kept, so a second run takes well under a second.
# kubectl comes from hack/k8s-binaries.sh (the same Kubernetes version as the clusters).
#   TOOLS="kind helm helm-unittest promtool helm-docs helm-schema"   which ones (hack/kind-up.sh asks for kind only)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

KIND_VERSION=${KIND_VERSION:-v0.33.0}
# Helm 4 is the current major line (Helm 3 gets security fixes only, until about a year after Helm 4's
# release in November 2025); charts with apiVersion v2 work with both. HELM_VERSION=v3.22.0 builds Helm 3.
HELM_VERSION=${HELM_VERSION:-v4.3.1}
HELM_UNITTEST_VERSION=${HELM_UNITTEST_VERSION:-v1.1.2}
HELM_PLUGINS_DIR=${HELM_PLUGINS_DIR:-$BIN_DIR/helm-plugins}
PROMETHEUS_VERSION=${PROMETHEUS_VERSION:-v3.5.0}   # keep equal to hack/prometheus-stack.sh's
HELM_DOCS_VERSION=${HELM_DOCS_VERSION:-v1.14.2}
HELM_SCHEMA_VERSION=${HELM_SCHEMA_VERSION:-v1.9.2}
TOOLS=" ${TOOLS:-kind helm helm-unittest promtool helm-docs helm-schema} "
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

# scratch_build DIR MODULE@VERSION: an empty module in DIR (recreated) that requires MODULE@VERSION
# with the replace directives of its go.mod that point to other modules. `go install pkg@version`
# refuses modules with replace directives, and it also asks the proxy for the module's version list
# (deprecation notices), which some proxies refuse for modules they serve by version.
scratch_build() {
  local d=$1 src
  rm -rf "$d"; mkdir -p "$d"; cd "$d"
  src=$(mod_dir "$2")
  [ -n "$src" ] || { echo "cannot fetch $2 from the Go module proxy"; return 1; }
  { echo "module local/build"; grep -E '^go ' "$src/go.mod"
    grep -E '^replace [^(]' "$src/go.mod" | grep -v '=> \.' || true
    sed -n '/^replace (/,/^)/p' "$src/go.mod" | grep -Ev '^(replace \(|\))$' | grep -v '=> \.' | sed 's/^/replace /' || true
  } >go.mod
  go get "$2"
}

# ---- promtool (`promtool test rules`: the chart's alerts, charts/videoedge/tests/alerts). Prometheus
# 3.Y.Z is the Go module version v0.3YY.Z. Built as hack/prometheus-stack.sh builds Prometheus: the same
# main package with only the kubernetes, file, http and dns service discovery mechanisms registered
# (upstream registers ~25 clouds' SDKs), so `promtool check config` knows those four; rule tests and
# checks are upstream's.
build_promtool() {
  local d="$VIDEOEDGE_CACHE/build/promtool" pkg=github.com/prometheus/prometheus/cmd/promtool pmaj pmin ppat mv dir f
  IFS=. read -r pmaj pmin ppat <<<"${PROMETHEUS_VERSION#v}"
  mv=$(printf 'v0.%d%02d.%d' "$pmaj" "$pmin" "$ppat")
  scratch_build "$d" "github.com/prometheus/prometheus@$mv"
  go get "$pkg@$mv"
  dir=$(go list -f '{{.Dir}}' "$pkg")
  mkdir -p cmd plugins
  for f in $(go list -f '{{join .GoFiles " "}}' "$pkg"); do
    sed 's|"github.com/prometheus/prometheus/plugins"|"local/build/plugins"|' "$dir/$f" >"cmd/$f"
  done
  grep -q '"local/build/plugins"' cmd/*.go || { echo "promtool does not import the plugins package any more"; return 1; }
  printf 'package plugins\n\nimport (\n' >plugins/plugins.go
  for p in kubernetes file http dns; do printf '\t_ "github.com/prometheus/prometheus/discovery/%s"\n' $p >>plugins/plugins.go; done
  printf ')\n' >>plugins/plugins.go
  go mod tidy
  go build -o "$BIN_DIR/promtool" -ldflags "-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_VERSION#v} -X github.com/prometheus/common/version.Branch=HEAD -X github.com/prometheus/common/version.Revision=unknown" ./cmd
  cd /; rm -rf "$d"
}
if ! want promtool; then :
elif [ "$("$BIN_DIR/promtool" --version 2>/dev/null | awk 'NR == 1 {print $3}')" = "${PROMETHEUS_VERSION#v}" ]; then
  log "promtool $PROMETHEUS_VERSION present"
else
  log "building promtool $PROMETHEUS_VERSION (cold Go cache: about 3 min on 2 cores)"
  step promtool-build build_promtool
fi

# ---- helm-docs and helm-values-schema-json: the chart's README.md and values.schema.json from
# values.yaml (`make chart-docs`). Neither prints its version, so each gets a stamp file next to it.
build_go_tool() { # NAME MODULE@VERSION PACKAGE
  local d="$VIDEOEDGE_CACHE/build/$1"
  scratch_build "$d" "$2"
  go get "$3@${2#*@}"
  go build -o "$BIN_DIR/$1" -ldflags "-s -w" "$3"
  echo "${2#*@}" >"$BIN_DIR/.$1.version"
  cd /; rm -rf "$d"
}
go_tool() { # NAME MODULE VERSION PACKAGE
  if [ -x "$BIN_DIR/$1" ] && [ "$(cat "$BIN_DIR/.$1.version" 2>/dev/null)" = "$3" ]; then
    log "$1 $3 present"
  else
    step "$1-build" build_go_tool "$1" "$2@$3" "$4"
  fi
}
if want helm-docs; then
  go_tool helm-docs github.com/norwoodj/helm-docs "$HELM_DOCS_VERSION" github.com/norwoodj/helm-docs/cmd/helm-docs
fi
if want helm-schema; then
  go_tool helm-values-schema-json github.com/losisin/helm-values-schema-json "$HELM_SCHEMA_VERSION" \
    github.com/losisin/helm-values-schema-json
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
if want promtool; then
  [ "$("$BIN_DIR/promtool" --version | awk 'NR == 1 {print $3}')" = "${PROMETHEUS_VERSION#v}" ] || die "promtool does not report $PROMETHEUS_VERSION"
fi
if want helm-docs; then
  "$BIN_DIR/helm-docs" --help >/dev/null 2>&1 || die "helm-docs does not run"
fi
if want helm-schema; then
  "$BIN_DIR/helm-values-schema-json" -help >/dev/null 2>&1 || die "helm-values-schema-json does not run"
fi
have=()
want kind && have+=("kind $KIND_VERSION")
want helm && have+=("helm $HELM_VERSION")
want helm-unittest && have+=("helm unittest $HELM_UNITTEST_VERSION (HELM_PLUGINS=$HELM_PLUGINS_DIR)")
want promtool && have+=("promtool $PROMETHEUS_VERSION")
want helm-docs && have+=("helm-docs $HELM_DOCS_VERSION")
want helm-schema && have+=("helm-values-schema-json $HELM_SCHEMA_VERSION")
log "in $BIN_DIR: $(IFS=,; echo "${have[*]}" | sed 's/,/, /g')"
