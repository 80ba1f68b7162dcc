# JVM flags for the edge server (sourced by run-local.sh, bench.sh and ab.sh): the ones the operator
# renders for a pod (operator/.../render/JvmOptions.java; JvmOptionsTest checks that they agree), so a
# benchmark measures what is deployed.
#   heap: small and fixed; request-path allocation is small and short-lived, bodies never touch it
#   direct memory: the buffer pool (plus the off-heap cache) is the only big direct user; bound it
#   jdk.nio.maxCachedBufferSize: stops the JDK's per-thread temporary direct buffer cache from growing
edge_jvm_flags() {
  local heap=${EDGE_HEAP:-256m} direct=${EDGE_MAX_DIRECT:-256m}
  echo "-Xms$heap -Xmx$heap -XX:MaxDirectMemorySize=$direct -XX:+UseG1GC -Djdk.nio.maxCachedBufferSize=65536" \
       "-XX:+AlwaysPreTouch -XX:+ExitOnOutOfMemoryError -XX:+PerfDisableSharedMem" \
       "--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
}
