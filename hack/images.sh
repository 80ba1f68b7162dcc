#!/bin/bash
# Container images of the three components, FROM debian:trixie-slim (make base-image provides it
# without a registry). Each image is built from a small staged context: the module's jar as
# app.jar and its runtime dependencies as lib/ (mvn package puts them in <module>/target/lib).
#   IMAGES        components to build (default: operator node-tuning edge-server)
#   IMAGE_PREFIX  repository prefix (default videoedge/)   IMAGE_TAG  tag (default: the chart's appVersion)
# Each image is started once (--help) after its build; sizes are printed at the end.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

IMAGES=${IMAGES:-"operator node-tuning edge-server"}
need_docker
docker image inspect debian:trixie-slim >/dev/null 2>&1 || die "debian:trixie-slim is missing: run 'make base-image'"

stage_context() { # module dir -> prints the staged context dir
  local module=$1 ctx="$VIDEOEDGE_CACHE/build/images/$1" jar
  jar=$(find "$ROOT/$module/target" -maxdepth 1 -name '*.jar' ! -name '*-tests.jar' ! -name '*-sources.jar' | head -n1)
  [ -n "$jar" ] && [ -d "$ROOT/$module/target/lib" ] || die "$module is not packaged: run 'make build' first"
  rm -rf "$ctx"; mkdir -p "$ctx"
  cp "$ROOT/images/$module/"* "$ctx/"
  cp "$jar" "$ctx/app.jar"
  cp -r "$ROOT/$module/target/lib" "$ctx/lib"
  echo "$ctx"
}

for module in $IMAGES; do
  image="$IMAGE_PREFIX$module:$IMAGE_TAG"
  ctx=$(stage_context "$module")
  step "image-$module" docker build --label "io.videoedge.component=$module" -t "$image" "$ctx"
  # it starts: the entry point answers --help
  step "image-$module-starts" docker run --rm "$image" --help
done

log "images:"
for module in $IMAGES; do
  image="$IMAGE_PREFIX$module:$IMAGE_TAG"
  printf '  %-36s %8s\n' "$image" "$(img_size "$image")" >&2
done
finish
