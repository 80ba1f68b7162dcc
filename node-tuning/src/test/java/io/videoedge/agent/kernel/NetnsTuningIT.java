package io.videoedge.agent.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.agent.host.CommandRunner;
import io.videoedge.agent.testing.Shell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real kernel: the packaged agent (`node-tuning plan|apply|revert --root /`) runs inside a
 * network namespace this test creates (`ip netns exec`, which also mounts that namespace's
 * /sys), on a veth pair. net.* sysctls there are per namespace, so nothing of the host changes;
 * global ones (tcp_mem, rps_sock_flow_entries) are not even visible there and must be reported
 * Unsupported, never written.
 */
class NetnsTuningIT {
    private static final String NOTSENT = "net.ipv4.tcp_notsent_lowat";

    @TempDir
    Path tmp;

    String ns;
    Path spec;
    Path journal;

    @BeforeEach
    void namespaceWithAVethPair() throws IOException {
        ns = "ve-nt-" + UUID.randomUUID().toString().substring(0, 8);
        Shell.run("ip", "netns", "add", ns);
        in("ip", "link", "add", "veth0", "type", "veth", "peer", "name", "veth1");
        in("ip", "link", "set", "lo", "up");
        in("ip", "link", "set", "veth0", "up");
        in("ip", "link", "set", "veth1", "up");
        // a namespace inherits the host's default (bbr here): start from something else; outside
        // the initial namespace only tcp_allowed_congestion_control may be chosen, reno always is
        in("sysctl", "-q", "-w", "net.ipv4.tcp_congestion_control=reno");
        journal = tmp.resolve("journal.json");
        spec = tmp.resolve("spec.yaml");
        Files.writeString(spec, """
        apiVersion: videoedge.io/v1alpha1
        kind: NodeTuning
        metadata: {name: it}
        spec:
          source: {name: it}
          nic:
            interfaces: [veth0]
            combinedQueues: 2
            irqAffinity: none
            rps: true
            rfs: {flowEntries: 4096}
          tuning:
            congestionControl: bbr
            sysctls:
              net.ipv4.tcp_notsent_lowat: "262144"
              net.ipv4.tcp_rmem: "4096 131072 8388608"
              net.ipv4.tcp_wmem: "4096 65536 8388608"
              net.core.somaxconn: "8192"
              net.ipv4.tcp_mem: "15000000 15000000 15000000"
        """);
    }

    @AfterEach
    void deleteNamespace() {
        Shell.result("ip", "netns", "del", ns);
    }

    private String in(String... command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        c.addAll(List.of(command));
        return Shell.run(c.toArray(String[]::new));
    }

    private String sysctl(String name) {
        return in("sysctl", "-n", name).replaceAll("\\s+", " ");
    }

    private String sysfs(String path) {
        return in("cat", path);
    }

    /** The packaged agent inside the namespace. */
    private CommandRunner.Result agent(String... args) {
        return agentIn(List.of("ip", "netns", "exec", ns), args);
    }

    /** The agent inside the namespace with /sys read-only, as kind's node image mounts it. */
    private CommandRunner.Result agentWithReadOnlySys(String... args) {
        return agentIn(
                List.of(
                        "ip",
                        "netns",
                        "exec",
                        ns,
                        "unshare",
                        "--mount",
                        "sh",
                        "-c",
                        "mount -o remount,bind,ro /sys && exec \"$@\"",
                        "sh"),
                args);
    }

    private CommandRunner.Result agentIn(List<String> wrapper, String... args) {
        String jar = System.getProperty("node-tuning.jar");
        Path lib = Path.of(jar).getParent().resolve("lib");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> c = new ArrayList<>(wrapper);
        c.addAll(List.of(
                java,
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-cp",
                jar + ":" + lib + "/*",
                "io.videoedge.agent.NodeTuningMain"));
        c.addAll(List.of(args));
        c.addAll(List.of("--root", "/", "--journal", journal.toString()));
        return Shell.result(c.toArray(String[]::new));
    }

    private static String hostValue(String name) throws IOException {
        try (var in = Files.newInputStream(Path.of("/proc/sys/" + name.replace('.', '/')))) {
            return new String(in.readAllBytes()).strip();
        }
    }

    @Test
    void appliesDetectsDriftAndRevertsPerNamespaceSettingsOnTheRealKernel() throws IOException {
        String hostCc = hostValue("net.ipv4.tcp_congestion_control");
        String hostNotsent = hostValue(NOTSENT);
        String hostTcpMem = hostValue("net.ipv4.tcp_mem");
        String notsent = sysctl(NOTSENT);
        String rmem = sysctl("net.ipv4.tcp_rmem");
        String wmem = sysctl("net.ipv4.tcp_wmem");
        String somaxconn = sysctl("net.core.somaxconn");

        // plan: the diff, nothing changed
        CommandRunner.Result plan = agent("plan", "--spec", spec.toString());
        assertThat(plan.exitCode()).as(plan.stderr()).isZero();
        assertThat(plan.stdout()).contains("planned     sysctl/net.ipv4.tcp_congestion_control        reno -> bbr");
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("reno");
        assertThat(journal).doesNotExist();

        // apply
        CommandRunner.Result apply = agent("apply", "--spec", spec.toString());
        assertThat(apply.exitCode()).as(apply.stdout() + apply.stderr()).isZero();
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("bbr");
        assertThat(sysctl(NOTSENT)).isEqualTo("262144");
        assertThat(sysctl("net.ipv4.tcp_rmem")).isEqualTo("4096 131072 8388608");
        assertThat(sysctl("net.ipv4.tcp_wmem")).isEqualTo("4096 65536 8388608");
        assertThat(sysctl("net.core.somaxconn")).isEqualTo("8192");
        // ethtool -L on the veth for real: a second RX queue appears, and gets RPS and RFS
        assertThat(in("ethtool", "-l", "veth0")).containsPattern("Current hardware settings:\\s+RX:\\s+2\\s+TX:\\s+2");
        String allCpus = Integer.toHexString((1 << Runtime.getRuntime().availableProcessors()) - 1);
        assertThat(Integer.parseInt(sysfs("/sys/class/net/veth0/queues/rx-1/rps_cpus"), 16))
                .isEqualTo(Integer.parseInt(allCpus, 16));
        assertThat(sysfs("/sys/class/net/veth0/queues/rx-0/rps_flow_cnt")).isEqualTo("2048");
        assertThat(sysfs("/sys/class/net/veth0/queues/rx-1/rps_flow_cnt")).isEqualTo("2048");
        // global sysctls are invisible in a namespace: reported, never written
        assertThat(apply.stdout())
                .containsPattern("unsupported\\s+sysctl/net.ipv4.tcp_mem")
                .containsPattern("unsupported\\s+sysctl/net.core.rps_sock_flow_entries");
        assertThat(hostValue("net.ipv4.tcp_mem")).isEqualTo(hostTcpMem);
        assertThat(hostValue("net.ipv4.tcp_congestion_control")).isEqualTo(hostCc);
        assertThat(hostValue(NOTSENT)).isEqualTo(hostNotsent);
        assertThat(journal).content().contains("\"original\" : \"reno\"");

        // drift: someone rewrites two values; the next pass says so and puts them back
        in("sysctl", "-q", "-w", "net.ipv4.tcp_congestion_control=reno");
        in("sh", "-c", "echo 0 > /sys/class/net/veth0/queues/rx-0/rps_cpus");
        CommandRunner.Result again = agent("apply", "--spec", spec.toString());
        assertThat(again.exitCode()).isZero();
        assertThat(again.stdout())
                .contains("drift: sysctl/net.ipv4.tcp_congestion_control was reno, re-applied bbr")
                .contains("drift: rps/veth0/rx-0 was 0");
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("bbr");
        assertThat(Integer.parseInt(sysfs("/sys/class/net/veth0/queues/rx-0/rps_cpus"), 16))
                .isNotZero();

        // revert: every original back, exactly
        CommandRunner.Result revert = agent("revert");
        assertThat(revert.exitCode()).as(revert.stdout()).isZero();
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("reno");
        assertThat(sysctl(NOTSENT)).isEqualTo(notsent);
        assertThat(sysctl("net.ipv4.tcp_rmem")).isEqualTo(rmem);
        assertThat(sysctl("net.ipv4.tcp_wmem")).isEqualTo(wmem);
        assertThat(sysctl("net.core.somaxconn")).isEqualTo(somaxconn);
        assertThat(in("ethtool", "-l", "veth0")).containsPattern("Current hardware settings:\\s+RX:\\s+1\\s+TX:\\s+1");
        assertThat(in("ls", "/sys/class/net/veth0/queues")).doesNotContain("rx-1");
        assertThat(sysfs("/sys/class/net/veth0/queues/rx-0/rps_cpus")).matches("0+");
        assertThat(sysfs("/sys/class/net/veth0/queues/rx-0/rps_flow_cnt")).isEqualTo("0");
        assertThat(journal).content().doesNotContain("sysctl/");
    }

    @Test
    void readOnlySysfsLeavesRpsAndRfsAloneAndAppliesTheRest() {
        String rps = sysfs("/sys/class/net/veth0/queues/rx-0/rps_cpus");
        CommandRunner.Result apply = agentWithReadOnlySys("apply", "--spec", spec.toString());
        assertThat(apply.exitCode()).as(apply.stdout() + apply.stderr()).isZero();
        assertThat(apply.stdout())
                .containsPattern("unsupported\\s+rps/veth0/rx-0")
                .containsPattern("unsupported\\s+rfs/veth0/rx-1")
                .contains("/sys is mounted read-only");
        assertThat(sysfs("/sys/class/net/veth0/queues/rx-0/rps_cpus")).isEqualTo(rps);
        assertThat(sysfs("/sys/class/net/veth0/queues/rx-0/rps_flow_cnt")).isEqualTo("0");
        // the rest of the pass is in: sysctls, and the queue count (ethtool talks ioctl, not /sys)
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("bbr");
        assertThat(sysctl(NOTSENT)).isEqualTo("262144");
        assertThat(in("ethtool", "-l", "veth0")).containsPattern("Current hardware settings:\\s+RX:\\s+2\\s+TX:\\s+2");

        CommandRunner.Result revert = agentWithReadOnlySys("revert");
        assertThat(revert.exitCode()).as(revert.stdout()).isZero();
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("reno");
        assertThat(in("ethtool", "-l", "veth0")).containsPattern("Current hardware settings:\\s+RX:\\s+1\\s+TX:\\s+1");
    }

    @Test
    void failedWriteOnTheRealKernelRollsBackThePass() throws IOException {
        // a value only the kernel refuses (EINVAL at write time), after the queue change and the
        // congestion control were already written in this pass
        Files.writeString(
                spec, Files.readString(spec).replace("net.core.somaxconn: \"8192\"", "net.core.somaxconn: \"-5\""));
        String notsent = sysctl(NOTSENT);
        CommandRunner.Result apply = agent("apply", "--spec", spec.toString());
        assertThat(apply.exitCode()).isEqualTo(1);
        assertThat(apply.stdout())
                .contains("result: ROLLED_BACK")
                .contains("sysctl/net.core.somaxconn: write -5 to /proc/sys/net/core/somaxconn");
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("reno");
        assertThat(sysctl(NOTSENT)).isEqualTo(notsent);
        assertThat(in("ethtool", "-l", "veth0")).containsPattern("Current hardware settings:\\s+RX:\\s+1\\s+TX:\\s+1");
    }

    /**
     * A value the kernel takes part of before it refuses the rest: tcp_wmem stores each number as it
     * parses it, so "4096 65536 4294967296" leaves the first two in place and fails on the third (above
     * INT_MAX). The change is real: the rollback puts the original back, not only the pass's other writes.
     */
    @Test
    void aValueTheKernelTookPartOfBeforeRefusingTheRestIsRolledBack() throws IOException {
        String wmem = sysctl("net.ipv4.tcp_wmem");
        Files.writeString(
                spec,
                Files.readString(spec)
                        .replace("net.core.somaxconn: \"8192\"", "net.ipv4.tcp_wmem: \"4096 65536 4294967296\""));
        assertThat(spec).content().contains("4294967296");
        CommandRunner.Result apply = agent("apply", "--spec", spec.toString());
        assertThat(apply.exitCode()).isEqualTo(1);
        assertThat(apply.stdout()).contains("result: ROLLED_BACK");
        assertThat(sysctl("net.ipv4.tcp_wmem")).isEqualTo(wmem);
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("reno");
    }

    @Test
    void tlsTxOffloadOnAVethIsUnsupportedWithTheReasonAndTheRestOfThePassApplies() throws IOException {
        // a veth cannot encrypt TLS records: the kernel lists the feature, fixed off
        String features = in("ethtool", "-k", "veth0");
        assertThat(features).contains("tls-hw-tx-offload: off [fixed]");
        Files.writeString(spec, Files.readString(spec).replace("\n  tuning:\n", "\n  tlsTxOffload: true\n  tuning:\n"));
        assertThat(spec).content().contains("tlsTxOffload: true");

        CommandRunner.Result apply = agent("apply", "--spec", spec.toString());

        assertThat(apply.exitCode()).as(apply.stdout() + apply.stderr()).isZero();
        assertThat(apply.stdout())
                .containsPattern("unsupported\\s+ethtool/veth0/tls-hw-tx-offload\\s+off -> on")
                .contains("(veth0 (veth) has no TLS TX offload (ethtool -k: tls-hw-tx-offload off [fixed]): "
                        + "the edge server uses kernel TLS in software)")
                .contains("result: APPLIED")
                .doesNotContain("failed")
                .doesNotContain("ROLLED_BACK");
        assertThat(in("ethtool", "-k", "veth0")).isEqualTo(features); // nothing was asked of the NIC
        // the rest of the pass is in
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("bbr");
        assertThat(sysctl(NOTSENT)).isEqualTo("262144");
        assertThat(in("ethtool", "-l", "veth0")).containsPattern("Current hardware settings:\\s+RX:\\s+2\\s+TX:\\s+2");
        assertThat(journal).content().doesNotContain("tls-hw-tx-offload");

        CommandRunner.Result revert = agent("revert");
        assertThat(revert.exitCode()).as(revert.stdout()).isZero();
        assertThat(sysctl("net.ipv4.tcp_congestion_control")).isEqualTo("reno");
        assertThat(in("ethtool", "-k", "veth0")).isEqualTo(features);
    }

    @Test
    void socketBufferCapMinimumsAreLeftWhereTheNodeHasThemAndReportedWhereItCannotRaiseThem() throws IOException {
        // net.core.wmem_max and rmem_max belong to the machine's initial network namespace: older kernels have
        // no file for them in another namespace, newer ones (6.18 here) show the initial namespace's value as it
        // was when the namespace was made, read-only even for root. The agent never fails the pass on them.
        String hostWmem = hostValue("net.core.wmem_max");
        String hostRmem = hostValue("net.core.rmem_max");
        boolean visible = Shell.result("ip", "netns", "exec", ns, "test", "-e", "/proc/sys/net/core/wmem_max")
                        .exitCode()
                == 0;
        boolean writable = visible
                && Shell.result("ip", "netns", "exec", ns, "test", "-w", "/proc/sys/net/core/wmem_max")
                                .exitCode()
                        == 0;
        long wmem = visible ? Long.parseLong(sysctl("net.core.wmem_max").strip()) : 212992;
        long rmem = visible ? Long.parseLong(sysctl("net.core.rmem_max").strip()) : 212992;
        // wmem_max: at least one less than the namespace has (left as it is); rmem_max: more than it has
        Files.writeString(
                spec,
                Files.readString(spec)
                        + "  sysctlMinimums:\n    net.core.wmem_max: " + (wmem - 1) + "\n    net.core.rmem_max: "
                        + (rmem * 2) + "\n");

        CommandRunner.Result apply = agent("apply", "--spec", spec.toString());

        assertThat(apply.exitCode()).as(apply.stdout() + apply.stderr()).isZero();
        assertThat(apply.stdout()).contains("result: APPLIED").doesNotContain("ROLLED_BACK");
        assertThat(sysctl(NOTSENT)).isEqualTo("262144"); // the rest of the pass is in
        if (!visible) {
            assertThat(apply.stdout())
                    .containsPattern("unsupported\\s+sysctl/net.core.wmem_max")
                    .containsPattern("unsupported\\s+sysctl/net.core.rmem_max")
                    .contains(
                            "(no /proc/sys/net/core/rmem_max here (global: only the initial network namespace has it");
        } else {
            assertThat(apply.stdout())
                    .containsPattern("unchanged\\s+sysctl/net.core.wmem_max\\s+" + wmem + " -> " + (wmem - 1))
                    .contains("(already at least " + (wmem - 1) + " (the node has " + wmem + "): left as it is)");
            if (writable) { // a kernel that lets a namespace have its own: raised there, restored by revert
                assertThat(sysctl("net.core.rmem_max")).isEqualTo(Long.toString(rmem * 2));
            } else {
                assertThat(apply.stdout())
                        .containsPattern("unsupported\\s+sysctl/net.core.rmem_max\\s+" + rmem + " -> " + (rmem * 2))
                        .contains("/proc/sys/net/core/rmem_max is read-only here (only the machine's initial network "
                                + "namespace may change it): sockets asking more are capped at " + rmem);
                assertThat(sysctl("net.core.rmem_max")).isEqualTo(Long.toString(rmem));
            }
            assertThat(sysctl("net.core.wmem_max")).isEqualTo(Long.toString(wmem));
        }
        assertThat(hostValue("net.core.wmem_max")).isEqualTo(hostWmem);
        assertThat(hostValue("net.core.rmem_max")).isEqualTo(hostRmem);
        assertThat(journal).content().doesNotContain("sysctl/net.core.wmem_max");

        CommandRunner.Result revert = agent("revert");
        assertThat(revert.exitCode()).as(revert.stdout()).isZero();
        if (visible) {
            assertThat(sysctl("net.core.rmem_max")).isEqualTo(Long.toString(rmem));
        }
        assertThat(hostValue("net.core.rmem_max")).isEqualTo(hostRmem);
    }
}
