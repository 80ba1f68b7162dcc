#!/bin/sh
# Edge server entry point: the operator's DaemonSet passes the arguments (--config ...) and sets
# VIDEOEDGE_NUMA_INTERLEAVE=true for tuning.numaInterleave. numactl needs set_mempolicy, which a
# seccomp profile may refuse; then the server runs without interleave and says so.
set -eu
CP=/opt/videoedge/app.jar:/opt/videoedge/lib/*
MAIN=io.videoedge.server.EdgeServerMain
# one-nio binds its native library with JNI and uses sun.misc.Unsafe: allowed here explicitly, so
# Java 25 does not print its restricted-method warnings on every start.
JAVA="java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
if [ "${VIDEOEDGE_NUMA_INTERLEAVE:-false}" = true ]; then
  if numactl --interleave=all true 2>/dev/null; then
    exec numactl --interleave=all $JAVA -cp "$CP" "$MAIN" "$@"
  fi
  echo '{"level":"WARN","logger":"entrypoint","message":"numaInterleave requested but numactl --interleave=all is refused here (set_mempolicy); running without it"}' >&2
fi
exec $JAVA -cp "$CP" "$MAIN" "$@"
