# shellcheck shell=bash
# Helpers of the checks that run inside the VM (sourced by tests.sh). Every check prints exactly one
# line, "PASS name (Ns): evidence" or "FAIL name (Ns): why", on the console and into /vm-out/results,
# which the host reads back (hack/vm/vm-test.sh); its full output goes to /vm-out/logs/<name>.log.
RESULTS=/vm-out/results
LOGS=/vm-out/logs
mkdir -p "$LOGS"
FAILS=0
T0=$(date +%s)
say() { echo "[guest $(( $(date +%s) - T0 ))s] $*"; }

# check NAME CMD...: CMD's exit code decides; its last output line is the evidence (or the reason).
check() {
  local name=$1 rc=0 s last log
  shift
  log="$LOGS/$(tr '/ ' '__' <<<"$name").log"
  s=$(date +%s)
  # a subshell with errexit, outside any || (where bash would ignore it): a failing step ends the check
  set +e
  (set -e; "$@") >"$log" 2>&1
  rc=$?
  last=$(tail -n 1 "$log")
  if [ "$rc" -eq 0 ]; then
    echo "PASS $name ($(( $(date +%s) - s ))s)${last:+: $last}" | tee -a "$RESULTS"
  else
    FAILS=$((FAILS + 1))
    echo "FAIL $name ($(( $(date +%s) - s ))s): ${last:-exit code $rc} [log: ${log#/vm-out/}]" | tee -a "$RESULTS"
  fi
}

# fail MESSAGE: the reason of a failing check (its last output line); errexit ends the check
fail() { echo "$*"; return 1; }

# at_least MIN WORD...: the admin metric (see metric) is at least MIN
at_least() { local min=$1; shift; [ "$(metric "$EDGE_ADMIN/metrics" "$@")" -ge "$min" ]; }

# junit_class NAME: one of edge-server's test classes (io.videoedge.server.NAME) on this kernel, with
# JUnit's console launcher; its output goes to /vm-out/logs/NAME.out and its report to /vm-out/junit.
# Prints one line: "NAME: n tests successful, 0 tests failed", or why it fails: unless every test
# passed and at least one ran (it runs in a command substitution, without errexit: each failure returns).
# The servers its tests start get 300 s to become ready, as the guest's own (edge_start): a JVM in
# software emulation takes 30-70 s, more than the 60 s of the tests' native runs.
junit_class() {
  local out=/vm-out/logs/$1.out cp summary
  cp="$REPO/edge-server/target/test-classes:$REPO/edge-server/target/classes:$(cat "$REPO/edge-server/target/vm/test-classpath.txt")"
  "$JAVA_HOME/bin/java" -XX:+EnableDynamicAgentLoading --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
    -Dvideoedge.testdata="$REPO/testdata/edge-server" -Dvideoedge.test.readySeconds=300 \
    -Dvideoedge.runtime.classpath="$REPO/edge-server/target/classes:$REPO/edge-server/target/lib/*" \
    -cp "$cp" org.junit.platform.console.ConsoleLauncher execute --select-class "io.videoedge.server.$1" \
    --details=tree --disable-banner --disable-ansi-colors --fail-if-no-tests --reports-dir /vm-out/junit >"$out" 2>&1 || true
  summary=$(grep -E 'tests (successful|failed)' "$out" | tr -s ' []' ' ' | paste -sd, -)
  [ -n "$summary" ] || fail "$1 did not finish: $(grep -m1 -E 'SIGSEGV|Error|Exception' "$out")" || return
  grep -qE '^\[ +0 tests failed +\]' "$out" || fail "$1:$summary; failed: $(grep '✘' "$out" | sed 's/^[^A-Za-z]*//' | head -3 | paste -sd' ' -)" || return
  grep -qE '^\[ +[1-9][0-9]* tests successful +\]' "$out" || fail "$1 ran no test" || return
  echo "$1:$summary"
}

# ---- numbers from the kernel and from Prometheus text
# tls_stat NAME: a counter of /proc/net/tls_stat (0 when the file is missing: the tls module is not loaded)
tls_stat() { awk -v k="$1" '$1 == k {print $2; found = 1} END {if (!found) print 0}' /proc/net/tls_stat 2>/dev/null || echo 0; }

# metric URL WORD...: the sum of the series whose name and labels contain every WORD (0 when none)
metric() {
  local url=$1; shift
  curl -fsS "$url" | awk -v words="$*" '
    /^#/ {next}
    { ok = 1; n = split(words, w, " "); for (i = 1; i <= n; i++) if (index($1, w[i]) == 0) ok = 0
      if (ok) sum += $2 }
    END {printf "%.0f\n", sum}'
}

# wait_for SECONDS CMD...: polls CMD every half second until it succeeds
wait_for() {
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.5
  done
}

# agent ARGS: the packaged agent, one-shot as `node-tuning apply|plan|revert` (no Kubernetes API), on
# the guest's own / with the journal $JOURNAL
agent() { (agent_exec "$@"); }
# agent_exec ARGS: the same, replacing the calling shell: in `(agent_exec ...) &`, $! is the JVM itself
agent_exec() {
  exec "$JAVA_HOME/bin/java" -XX:TieredStopAtLevel=1 -cp "$REPO/node-tuning/target/node-tuning-0.1.0-SNAPSHOT.jar:$REPO/node-tuning/target/lib/*" \
    io.videoedge.agent.NodeTuningMain "$@" --root / --journal "$JOURNAL"
}

# the edge server as run-local.sh starts it (the project's classes, libonenio.so, the host-made config);
# started and stopped by the calling shell (not inside a check), so it is its child and is reaped;
# the admin endpoint is $EDGE_ADMIN
edge_launch() { # LOG [CONFIG (default: $FIX/edge-server.yaml)]
  # shellcheck source=../../../edge-server/scripts/jvm-flags.sh
  . "$REPO/edge-server/scripts/jvm-flags.sh"
  rm -rf /tmp/vm/tickets /tmp/vm/cache
  EDGE_LOG=$1 EDGE_T0=$(date +%s)
  # shellcheck disable=SC2046
  "$JAVA_HOME/bin/java" $(edge_jvm_flags) -cp "$REPO/edge-server/target/classes:$REPO/edge-server/target/lib/*" \
    io.videoedge.server.EdgeServerMain --config "${2:-$FIX/edge-server.yaml}" >"$EDGE_LOG" 2>&1 &
  EDGE_PID=$!
}
edge_up() { # ready, or exited (then the wait is over: edge_ready says why)
  curl -fsS "$EDGE_ADMIN/readyz" >/dev/null 2>&1 || ! kill -0 "$EDGE_PID" 2>/dev/null
}
edge_ready() {
  wait_for 300 edge_up || { tail -n 20 "$EDGE_LOG"; fail "the edge server did not become ready in 300 s"; }
  kill -0 "$EDGE_PID" 2>/dev/null || { tail -n 20 "$EDGE_LOG"; fail "the edge server exited before it was ready: $(grep -v '^{' "$EDGE_LOG" | tail -n 1)"; }
  echo "ready $(( $(date +%s) - EDGE_T0 )) s after java started (pid $EDGE_PID)"
}
edge_stop() {
  local rc=0
  kill "$EDGE_PID" 2>/dev/null
  wait "$EDGE_PID" || rc=$?
  say "edge server stopped (exit code $rc)"
}
