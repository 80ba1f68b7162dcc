#!/bin/bash
# The chart's documentation from its one source, charts/videoedge/values.yaml (`make chart-docs`):
#   values.schema.json  helm-values-schema-json, from the `# @schema` line comments (types are the values';
#                       objects marked `additionalProperties: false` refuse unknown keys)
#   README.md           helm-docs, from the `# --` comments and README.md.gotmpl
# `make verify` regenerates both and fails when the committed ones differ.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
CHART=$ROOT/charts/videoedge
for t in helm-values-schema-json helm-docs; do
  [ -x "$BIN_DIR/$t" ] || die "$t not found in $BIN_DIR: run 'make tools'"
done
cd "$CHART"
"$BIN_DIR/helm-values-schema-json" -input values.yaml -output values.schema.json -draft 7 -indent 2 \
  -schemaRoot.title "VideoEdge chart values" -schemaRoot.additionalProperties=false >/dev/null
"$BIN_DIR/helm-docs" --chart-search-root . --template-files README.md.gotmpl --output-file README.md \
  --sort-values-order file --log-level warning
log "wrote charts/videoedge/values.schema.json and README.md from values.yaml"
