#!/usr/bin/env bash
# make chaos (ChaosMain) and make soak (SoakMain): the harness of src/test/java/io/videoedge/server/chaos,
# a plain java main on the test class path (written by -Pchaos), which starts the real edge server as its
# own JVM (target/classes + target/lib, the flags of jvm-flags.sh) and an origin on loopback, and prints
# its table. Settings: see the class comments (CHAOS_*, SOAK_*, EDGE_HEAP, EDGE_MAX_DIRECT).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
module=$(dirname "$here")
: "${JAVA_HOME:?set JAVA_HOME (the Makefile does)}"
main=${1:?usage: chaos.sh ChaosMain|SoakMain}
for tool in openssl; do
  command -v "$tool" >/dev/null || { echo "chaos: $tool not found (make deps)" >&2; exit 1; }
done
cp_file="$module/target/chaos/test-classpath.txt"
[ -f "$cp_file" ] || { echo "chaos: $cp_file missing (build with -Pchaos, as make chaos does)" >&2; exit 1; }
# the attackers' thousands of sockets: the harness needs descriptors (the server JVM raises its own)
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec "$JAVA_HOME/bin/java" -Xmx1g -XX:+UseParallelGC --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Dvideoedge.testdata="$module/../testdata/edge-server" \
  -Dvideoedge.runtime.classpath="$module/target/classes:$module/target/lib/*" \
  -cp "$module/target/test-classes:$module/target/classes:$(cat "$cp_file")" "io.videoedge.server.chaos.$main"
