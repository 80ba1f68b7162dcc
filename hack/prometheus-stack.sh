#!/bin/bash
# The Prometheus Operator stack for clusters without a registry, and its CRDs:
#   images   the operator and prometheus-config-reloader $PROM_OPERATOR_VERSION and Prometheus $PROMETHEUS_VERSION,
#            under the names the operator uses by default (quay.io/...; read from its source), so its
#            upstream manifests work unchanged once the images are in the cluster (`kind load docker-image`).
#            Present locally: kept. Else a `docker pull` when a registry answers, else built here from
#            the Go module proxy into FROM scratch images.
#   CRDs     monitoring.coreos.com, in $VIDEOEDGE_CACHE/prometheus-operator/crds (path printed at the end).
#            Default: the CRDs the operator's module ships (example/prometheus-operator-crd: what upstream's
#            `make generate-crds` generates from pkg/apis/monitoring, and what its releases install).
#            PROM_CRDS=generate: generated here from pkg/apis/monitoring with controller-gen $CONTROLLER_TOOLS_VERSION.
#            They are too large for client-side apply: `kubectl apply --server-side -f <dir>`.
#   also     in $VIDEOEDGE_CACHE/prometheus-operator: bundle.yaml, upstream's install manifest (CRDs, RBAC,
#            operator Deployment in namespace default: `kubectl apply --server-side -f bundle.yaml`),
#            prometheus-rbac.yaml (ServiceAccount "prometheus" + its ClusterRole), images.env (the names).
# Prometheus is built without its web UI assets (HTTP API, /metrics, /-/ready work; the UI pages do not)
# and with only the kubernetes, file, http and dns service discovery mechanisms (what the operator's
# ServiceMonitor/PodMonitor/Probe configs use): that halves a cold build. PROM_ALL_SD=1 builds all of them.
#   IMAGE_SOURCE=auto|pull|build   FORCE=1 (rebuild images and binaries)
#   PROM_PARTS="images crds" (default) or "crds": only the CRDs, no Docker needed (`make test` uses them)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PROM_OPERATOR_VERSION=${PROM_OPERATOR_VERSION:-v0.85.0}
PROMETHEUS_VERSION=${PROMETHEUS_VERSION:-v3.5.0}        # the operator v0.85.0's default Prometheus
CONTROLLER_TOOLS_VERSION=${CONTROLLER_TOOLS_VERSION:-v0.23.0}
PROM_CRDS=${PROM_CRDS:-upstream}
PROM_ALL_SD=${PROM_ALL_SD:-0}
IMAGE_SOURCE=${IMAGE_SOURCE:-auto}
FORCE=${FORCE:-0}
PROM_PARTS=${PROM_PARTS:-images crds}
WANT_IMAGES=0
[[ " $PROM_PARTS " == *" images "* ]] && WANT_IMAGES=1
need_cmd go jq
[ "$WANT_IMAGES" = 0 ] || need_docker
export CGO_ENABLED=0

PO="$VIDEOEDGE_CACHE/prometheus-operator"
PB="$PO/bin"
mkdir -p "$PB" "$VIDEOEDGE_CACHE/build"
OP_MOD=github.com/prometheus-operator/prometheus-operator
OP_SRC=$(mod_dir "$OP_MOD@$PROM_OPERATOR_VERSION")
[ -n "$OP_SRC" ] || die "cannot fetch $OP_MOD@$PROM_OPERATOR_VERSION from the Go module proxy"
# Prometheus 3.Y.Z is published as the Go module version v0.3YY.Z
IFS=. read -r pmaj pmin ppat <<<"${PROMETHEUS_VERSION#v}"
PROM_MOD_VERSION=$(printf 'v0.%d%02d.%d' "$pmaj" "$pmin" "$ppat")
VERSION_PKG=github.com/prometheus/common/version

# ---- image names: the operator's defaults, from its source and its install bundle
# (OPERATOR_IMAGE, RELOADER_IMAGE, PROMETHEUS_IMAGE override them, e.g. to test a build under other
# names; the operator then needs --prometheus-config-reloader=... and Prometheus resources spec.image)
defaults="$OP_SRC/pkg/operator/defaults.go"
OPERATOR_IMAGE=${OPERATOR_IMAGE:-$(sed -n 's|^ *image: \(.*/prometheus-operator:v.*\)$|\1|p' "$OP_SRC/bundle.yaml" | head -n 1)}
RELOADER_IMAGE=${RELOADER_IMAGE:-$(sed -n 's|.*DefaultPrometheusConfigReloaderImage *= *"\([^"]*\)".*|\1|p' "$defaults")${PROM_OPERATOR_VERSION#v}}
PROMETHEUS_IMAGE=${PROMETHEUS_IMAGE:-$(sed -n 's|.*DefaultPrometheusBaseImage *= *"\([^"]*\)".*|\1|p' "$defaults"):$PROMETHEUS_VERSION}
prom_default=$(sed -n '/PrometheusCompatibilityMatrix = \[\]string{/,/}/p' "$defaults" | grep -o '"v[^"]*"' | tail -n 1 | tr -d '"')
for i in "$OPERATOR_IMAGE" "$RELOADER_IMAGE" "$PROMETHEUS_IMAGE"; do
  [[ $i == */*:* ]] || die "cannot read the default image names from $OP_MOD@$PROM_OPERATOR_VERSION (got '$i')"
done
[ "$prom_default" = "$PROMETHEUS_VERSION" ] || log "note: operator $PROM_OPERATOR_VERSION defaults to Prometheus $prom_default; Prometheus resources must set spec.version: $PROMETHEUS_VERSION"

RECIPE=$( { cat "$ROOT/hack/prometheus-stack.sh"; echo "$PROM_OPERATOR_VERSION $PROMETHEUS_VERSION $PROM_ALL_SD"; } | sha256sum | cut -c1-16)
LABEL=io.videoedge.prometheus-stack.recipe
usable() { # image: present, and either not ours (pulled) or built from this recipe
  docker image inspect "$1" >/dev/null 2>&1 || return 1
  local r; r=$(image_label "$1" "$LABEL")
  [ -z "$r" ] || [ "$r" = "$RECIPE" ]
}
missing=()
for i in "$OPERATOR_IMAGE" "$RELOADER_IMAGE" "$PROMETHEUS_IMAGE"; do
  [ "$WANT_IMAGES" = 1 ] || break
  if [ "$FORCE" != 1 ] && usable "$i"; then log "$i present"; else missing+=("$i"); fi
done

# ---- pull when a registry answers (one failed probe means no registry: build the rest)
if [ ${#missing[@]} -gt 0 ] && [ "$FORCE" != 1 ]; then
  left=()
  for i in "${missing[@]}"; do
    if [ ${#left[@]} -eq 0 ] && pull_image "$i"; then continue; fi
    left+=("$i")
  done
  missing=(${left[@]+"${left[@]}"})
  [ ${#missing[@]} -eq 0 ] || [ "$IMAGE_SOURCE" != pull ] || die "cannot pull ${missing[*]} (IMAGE_SOURCE=pull)"
fi

# ---- offline build
# scratch_module DIR MODULE@VERSION: a module requiring it, with the replace directives of its go.mod
# that point to other modules (`go install pkg@version` refuses modules with replace directives)
scratch_module() {
  local src
  rm -rf "$1"; mkdir -p "$1"; cd "$1"
  src=$(mod_dir "$2")
  { echo "module local/build"; grep -E '^go ' "$src/go.mod"
    grep -E '^replace [^(]' "$src/go.mod" | grep -v '=> \.' || true
    sed -n '/^replace (/,/^)/p' "$src/go.mod" | grep -Ev '^(replace \(|\))$' | grep -v '=> \.' | sed 's/^/replace /' || true
  } >go.mod
}
build_operator() {
  local d="$VIDEOEDGE_CACHE/build/prom-operator"
  scratch_module "$d" "$OP_MOD@$PROM_OPERATOR_VERSION"
  # upstream replaces its API and client modules with local directories: use the published ones
  printf 'replace %s/pkg/%s => %s/pkg/%s %s\n' "$OP_MOD" apis/monitoring "$OP_MOD" apis/monitoring "$PROM_OPERATOR_VERSION" \
    "$OP_MOD" client "$OP_MOD" client "$PROM_OPERATOR_VERSION" >>go.mod
  go get "$OP_MOD/cmd/operator@$PROM_OPERATOR_VERSION" "$OP_MOD/cmd/prometheus-config-reloader@$PROM_OPERATOR_VERSION"
  go build -trimpath -o out/ -ldflags "-s -w -X $VERSION_PKG.Version=${PROM_OPERATOR_VERSION#v} -X $VERSION_PKG.Branch=HEAD -X $VERSION_PKG.Revision=unknown" \
    "$OP_MOD/cmd/operator" "$OP_MOD/cmd/prometheus-config-reloader"
  mv -f out/operator out/prometheus-config-reloader "$PB/"
  cd /; rm -rf "$d"
}
build_prometheus() {
  local d="$VIDEOEDGE_CACHE/build/prometheus" pkg=github.com/prometheus/prometheus/cmd/prometheus
  scratch_module "$d" "github.com/prometheus/prometheus@$PROM_MOD_VERSION"
  go get "$pkg@$PROM_MOD_VERSION"
  if [ "$PROM_ALL_SD" != 1 ]; then
    # the same main package, with a plugins package that registers only the mechanisms the operator's
    # generated configs use (upstream's plugins package registers ~25 clouds' SDKs)
    mkdir -p cmd plugins
    sed 's|"github.com/prometheus/prometheus/plugins"|"local/build/plugins"|' "$(go list -f '{{.Dir}}' "$pkg")/main.go" >cmd/main.go
    grep -q '"local/build/plugins"' cmd/main.go || { echo "main.go does not import the plugins package any more"; return 1; }
    printf 'package plugins\n\nimport (\n' >plugins/plugins.go
    for p in kubernetes file http dns; do printf '\t_ "github.com/prometheus/prometheus/discovery/%s"\n' $p >>plugins/plugins.go; done
    printf ')\n' >>plugins/plugins.go
    go mod tidy
    pkg=./cmd
  fi
  go build -trimpath -o out/prometheus -ldflags "-s -w -X $VERSION_PKG.Version=${PROMETHEUS_VERSION#v} -X $VERSION_PKG.Branch=HEAD -X $VERSION_PKG.Revision=unknown" "$pkg"
  mv -f out/prometheus "$PB/"
  cd /; rm -rf "$d"
}
bin_version() { "$PB/$1" --version 2>/dev/null | awk 'NR == 1 {print $3}'; }
build_image() { # image binary [workdir]: FROM scratch + the binary in /bin, as nobody
  local root="$VIDEOEDGE_CACHE/build/img-$2"
  rm -rf "$root"; mkdir -p "$root/bin" "$root/etc" "$root/tmp" "$root/prometheus"
  chmod 1777 "$root/tmp"; chmod 777 "$root/prometheus"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnobody:x:65534:\n' >"$root/etc/group"
  cp "$PB/$2" "$root/bin/"
  tar -C "$root" --numeric-owner --owner=0 --group=0 -c . | docker import -c "ENTRYPOINT [\"/bin/$2\"]" -c 'USER 65534' \
    ${3:+-c "WORKDIR $3"} -c "LABEL $LABEL=$RECIPE" -m "built from the Go module proxy by hack/prometheus-stack.sh" - "$1" >/dev/null
  rm -rf "$root"
  docker run --rm "$1" --version 2>&1 | head -n 1
}
if [ ${#missing[@]} -gt 0 ]; then
  [ "$IMAGE_SOURCE" != pull ] || die "cannot pull ${missing[*]} (IMAGE_SOURCE=pull)"
  if [ "$FORCE" = 1 ] || [ "$(bin_version operator)" != "${PROM_OPERATOR_VERSION#v}" ] || [ "$(bin_version prometheus-config-reloader)" != "${PROM_OPERATOR_VERSION#v}" ]; then
    log "building the Prometheus Operator $PROM_OPERATOR_VERSION (cold Go cache: 4-5 min on 2 cores)"
    step prom-operator-build build_operator
  fi
  prom_flavour="$PROMETHEUS_VERSION all-sd=$PROM_ALL_SD"
  if [ "$FORCE" = 1 ] || [ "$(bin_version prometheus)" != "${PROMETHEUS_VERSION#v}" ] || [ "$(cat "$PB/prometheus.flavour" 2>/dev/null)" != "$prom_flavour" ]; then
    log "building Prometheus $PROMETHEUS_VERSION (cold Go cache: about 3 min on 2 cores)"
    step prometheus-build build_prometheus
    echo "$prom_flavour" >"$PB/prometheus.flavour"
  fi
  for i in "${missing[@]}"; do
    case $i in
      "$OPERATOR_IMAGE") b=operator w="" ;;
      "$RELOADER_IMAGE") b=prometheus-config-reloader w="" ;;
      *) b=prometheus w=/prometheus ;;
    esac
    old_id=$(image_id "$i")
    step "prom-image-$b" build_image "$i" "$b" $w
    drop_if_dangling "$old_id"
    log "$i: $(tail -n 1 "$VIDEOEDGE_CACHE/logs/prom-image-$b.log"), $(img_size "$i")"
  done
fi

# ---- CRDs (+ upstream's install bundle)
CRDS="$PO/crds"
want="$PROM_OPERATOR_VERSION $PROM_CRDS ${CONTROLLER_TOOLS_VERSION}"
gen_crds() {
  local d="$VIDEOEDGE_CACHE/build/prom-crds" api
  rm -rf "$d" "$CRDS.tmp"; mkdir -p "$d" "$CRDS.tmp"
  if [ "$PROM_CRDS" = generate ]; then
    if [ "$("$BIN_DIR/controller-gen" --version 2>/dev/null | awk '{print $2}')" != "$CONTROLLER_TOOLS_VERSION" ]; then
      GOBIN="$BIN_DIR" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/controller-tools/cmd/controller-gen@$CONTROLLER_TOOLS_VERSION"
    fi
    api=$(mod_dir "$OP_MOD/pkg/apis/monitoring@$PROM_OPERATOR_VERSION")
    cp -r "$api" "$d/monitoring"; chmod -R u+w "$d/monitoring"
    # as upstream's `make generate-crds`: v1 and v1alpha1 (v1beta1 needs the conversion webhook)
    (cd "$d/monitoring" && go mod download && "$BIN_DIR/controller-gen" crd:crdVersions=v1 paths=./v1/. paths=./v1alpha1/. output:crd:dir="$CRDS.tmp")
  else
    cp "$OP_SRC"/example/prometheus-operator-crd/*.yaml "$CRDS.tmp/"
  fi
  chmod u+w "$CRDS.tmp"/*.yaml
  ls -l "$CRDS.tmp"
  echo "$want" >"$CRDS.tmp/.source"
  rm -rf "$CRDS"; mv "$CRDS.tmp" "$CRDS"; rm -rf "$d"
}
if [ "$FORCE" != 1 ] && [ "$(cat "$CRDS/.source" 2>/dev/null)" = "$want" ]; then
  log "CRDs present"
else
  step prom-crds gen_crds
fi
# upstream's install manifest and Prometheus' RBAC, and the image names for scripts (hack/prometheus-up.sh)
cp -f "$OP_SRC/bundle.yaml" "$PO/bundle.yaml"
for f in service-account cluster-role cluster-role-binding; do
  echo "---"; cat "$OP_SRC/example/rbac/prometheus/prometheus-$f.yaml"
done >"$PO/prometheus-rbac.yaml"
chmod u+w "$PO"/*.yaml
printf 'OPERATOR_IMAGE=%s\nRELOADER_IMAGE=%s\nPROMETHEUS_IMAGE=%s\nPROMETHEUS_VERSION=%s\n' \
  "$OPERATOR_IMAGE" "$RELOADER_IMAGE" "$PROMETHEUS_IMAGE" "$PROMETHEUS_VERSION" >"$PO/images.env"
log "images: $OPERATOR_IMAGE $RELOADER_IMAGE $PROMETHEUS_IMAGE"
log "CRDs ($PROM_CRDS, $(ls "$CRDS" | sed -n 's/^monitoring.coreos.com_\(.*\)\.yaml$/\1/p' | tr '\n' ' ')); apply with: kubectl apply --server-side -f $CRDS"
log "operator install manifest: $PO/bundle.yaml"
echo "$CRDS"
