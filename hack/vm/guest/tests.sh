#!/bin/bash
# The VM tier's checks, run inside the guest as root (hack/vm/vm-test.sh boots it with this command).
# /vm-out/env gives REPO (this checkout), FIX (fixtures the host made), JAVA_HOME and VM_GROUPS (the
# groups to run, default all: ktls nic pod sockets). Every check
# prints one PASS/FAIL line (guest/lib.sh); the exit code is 1 when any failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
# shellcheck source=/dev/null
. /vm-out/env
: "${REPO:?} ${FIX:?} ${JAVA_HOME:?}"
: >"$RESULTS"
mkdir -p /tmp/vm
say "kernel $(uname -r), $(nproc) CPUs, $(find /sys/devices/system/node -maxdepth 1 -name "node[0-9]*" | wc -l) NUMA nodes, java $("$JAVA_HOME/bin/java" -version 2>&1 | awk -F'"' 'NR == 1 {print $2}') ($(( $(date +%s) - T0 )) s for java -version)"
for group in ${VM_GROUPS:-ktls nic pod sockets}; do
  say "group $group"
  if [ -f "$here/$group.sh" ]; then
    # shellcheck source=/dev/null
    . "$here/$group.sh"
  else
    check "group $group" fail "no such group (VM_GROUPS: ktls nic pod sockets)"
  fi
done
say "$FAILS check(s) failed"
[ "$FAILS" -eq 0 ]
