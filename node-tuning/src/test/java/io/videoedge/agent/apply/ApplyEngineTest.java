package io.videoedge.agent.apply;

import static io.videoedge.agent.testing.Specs.spec;
import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.agent.plan.Setting;
import io.videoedge.agent.testing.FakeCommands;
import io.videoedge.agent.testing.FakeNode;
import io.videoedge.agent.testing.Specs;
import io.videoedge.api.IrqAffinity;
import io.videoedge.api.SettingState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Appliers and the engine against a fake /proc and /sys tree and fake ethtool/modprobe. */
class ApplyEngineTest {
    @TempDir
    Path tmp;

    FakeNode node;
    FakeCommands cmds;
    Path journal;

    @BeforeEach
    void node() throws IOException {
        node = new FakeNode(Files.createDirectories(tmp.resolve("root")))
                .cpus(8)
                .defaultRoute("eth0")
                .nic("eth0", "mlx5_core", 4, 40, 0);
        cmds = new FakeCommands(node).combined("eth0", 8, 4).coalescing("eth0", "on", 8, 16);
        journal = tmp.resolve("state/journal.json");
    }

    private static Specs seed() {
        return spec().queues(4)
                .rfs(32768)
                .sysctls(Map.of(
                        "net.ipv4.tcp_mem",
                        "15000000 15000000 15000000",
                        "net.ipv4.tcp_notsent_lowat",
                        "262144",
                        "vm.min_free_kbytes",
                        "1048576",
                        "vm.swappiness",
                        "0"));
    }

    private ApplyEngine engine() {
        return ApplyEngine.onHost(node.root(), cmds, journal);
    }

    /** Every file of the fake tree with its content: to prove a pass or a revert left it exactly so. */
    private Map<String, String> snapshot() throws IOException {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(node.root())) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                m.put(node.root().relativize(p).toString(), Files.readString(p));
            }
        }
        return m;
    }

    @Test
    void appliesEverySettingJournalsOriginalsAndReadsBack() throws IOException {
        PassResult r = engine().pass(seed().desired());

        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(r.error()).isNull();
        assertThat(node.value("proc/sys/net/ipv4/tcp_congestion_control")).isEqualTo("cubic"); // bbr not available here
        assertThat(r.plan()
                        .find("sysctl/net.ipv4.tcp_congestion_control")
                        .orElseThrow()
                        .state())
                .isEqualTo(SettingState.UNSUPPORTED);
        assertThat(node.value("proc/sys/net/ipv4/tcp_mem")).isEqualTo("15000000 15000000 15000000");
        assertThat(node.value("proc/sys/vm/min_free_kbytes")).isEqualTo("1048576");
        assertThat(node.value("proc/irq/43/smp_affinity_list")).isEqualTo("2");
        assertThat(node.value("sys/class/net/eth0/queues/rx-3/rps_cpus")).isEqualTo("ff");
        assertThat(node.value("sys/class/net/eth0/queues/rx-3/rps_flow_cnt")).isEqualTo("8192");
        assertThat(cmds.coalesce("eth0", "adaptive-rx")).isEqualTo("off");
        assertThat(cmds.coalesce("eth0", "rx-usecs")).isEqualTo("64");
        assertThat(r.plan().find("sysctl/vm.swappiness").orElseThrow().state()).isEqualTo(SettingState.APPLIED);
        assertThat(r.originals())
                .containsEntry("sysctl/net.ipv4.tcp_mem", "287901\t383869\t575802")
                .containsEntry("irq/eth0/41", "0-7")
                .containsEntry("ethtool/eth0/rx-usecs", "8");
        assertThat(Journal.open(journal, java.time.Clock.systemUTC()).fingerprint())
                .isEqualTo(r.fingerprint());
    }

    @Test
    void secondPassWithNothingChangedWritesNothing() {
        ApplyEngine e = engine();
        e.pass(seed().desired());
        int commands = cmds.log().size();
        PassResult again = e.pass(seed().desired());
        assertThat(again.wrote()).isFalse();
        assertThat(again.drifted()).isEmpty();
        assertThat(again.plan().changes()).isEmpty();
        assertThat(cmds.log().subList(commands, cmds.log().size()))
                .noneMatch(c -> c.startsWith("ethtool -C") || c.startsWith("ethtool -L"));
    }

    @Test
    void queueCountChangeIsAppliedFirstAndTheNewQueuesGetRpsAndRfs() {
        PassResult r = engine().pass(seed().queues(8).desired());
        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(cmds.combinedNow("eth0")).isEqualTo(8);
        assertThat(r.plan().find("ethtool/eth0/combined").orElseThrow().state()).isEqualTo(SettingState.APPLIED);
        assertThat(node.value("sys/class/net/eth0/queues/rx-7/rps_cpus")).isEqualTo("ff");
        assertThat(node.value("sys/class/net/eth0/queues/rx-7/rps_flow_cnt")).isEqualTo("4096"); // 32768 / 8 queues
    }

    @Test
    void failedWriteMidPassRestoresEverythingThisPassChanged() throws IOException {
        Map<String, String> coalescingBefore = Map.of(
                "adaptive-rx", cmds.coalesce("eth0", "adaptive-rx"), "rx-usecs", cmds.coalesce("eth0", "rx-usecs"));
        node.refuseWrites("sys/class/net/eth0/queues/rx-2/rps_cpus");
        Map<String, String> before = snapshot();

        PassResult r = engine().pass(seed().desired());

        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.ROLLED_BACK);
        assertThat(r.error()).startsWith("rps/eth0/rx-2: write ff to /sys/class/net/eth0/queues/rx-2/rps_cpus");
        assertThat(r.plan().find("rps/eth0/rx-2").orElseThrow().state()).isEqualTo(SettingState.FAILED);
        Setting sysctl = r.plan().find("sysctl/vm.swappiness").orElseThrow();
        assertThat(sysctl.state()).isEqualTo(SettingState.PENDING);
        assertThat(sysctl.message()).contains("rolled back after rps/eth0/rx-2 failed");
        assertThat(snapshot()).isEqualTo(before); // sysctls, IRQs, RPS of rx-0/1: all as they were
        assertThat(cmds.coalesce("eth0", "adaptive-rx")).isEqualTo(coalescingBefore.get("adaptive-rx"));
        assertThat(cmds.coalesce("eth0", "rx-usecs")).isEqualTo(coalescingBefore.get("rx-usecs"));
        assertThat(Journal.open(journal, java.time.Clock.systemUTC()).entries()).isEmpty();
    }

    @Test
    void valueTheNicRoundsIsAFailedReadBackAndRollsBack() {
        cmds.clamp("eth0", "rx-usecs", "64", "62");
        PassResult r = engine().pass(seed().desired());
        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.ROLLED_BACK);
        assertThat(r.plan().find("ethtool/eth0/rx-usecs").orElseThrow().message())
                .isEqualTo("wrote 64, read back 62");
        assertThat(cmds.coalesce("eth0", "rx-usecs")).isEqualTo("8");
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("60");
    }

    /**
     * virtio_net as make vm-test found it: 4 queue pairs, 2 on, and on every channel change the driver
     * rewrites every queue IRQ's affinity (pair N to CPU N mod 2), so pair 2's vectors go from CPU 1
     * (their value since boot) to 0 without the agent writing them.
     */
    private void virtioNode(int nicNode) throws IOException {
        node = new FakeNode(Files.createDirectories(tmp.resolve("virtio")))
                .numa(2, 2)
                .defaultRoute("eth0")
                .nic("eth0", "virtio_net", 4, 28, nicNode);
        node.setQueues("eth0", 2);
        Map<Integer, String> boot = Map.of(29, "0", 30, "0", 31, "1", 32, "1", 33, "1", 34, "1", 35, "1", 36, "1");
        boot.forEach((irq, cpus) -> node.file("proc/irq/" + irq + "/smp_affinity_list", cpus));
        cmds = new FakeCommands(node)
                .combined("eth0", 4, 2)
                .driverResetsIrqAffinity(
                        "eth0", Map.of(29, "0", 30, "0", 31, "1", 32, "1", 33, "0", 34, "0", 35, "1", 36, "1"));
    }

    @Test
    void revertRestoresIrqAffinitiesAsTheyWereBeforeADriverResetThemOnTheQueueChange() throws IOException {
        virtioNode(1);
        Map<String, String> before = snapshot();
        PassResult r = engine().pass(spec().queues(4).desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("proc/irq/33/smp_affinity_list"))
                .isEqualTo("1"); // spread: pair 2 on the NIC's node (CPU 1)
        assertThat(r.originals()).containsEntry("irq/eth0/33", "1"); // the value before the pass, not the driver's 0

        RevertResult back = engine().revert();
        assertThat(back.complete()).isTrue();
        assertThat(snapshot()).isEqualTo(before);
    }

    /**
     * A driver reloaded within the boot (a firmware update, an administrator's modprobe -r) gives the NIC's queues new
     * IRQ numbers, and an old number may then be another device's: a revert writes no original there (its entries are
     * gone), and the new numbers, never tuned, keep the kernel's values.
     */
    @Test
    void aRevertAfterTheDriverRenumberedItsIrqsWritesNoOriginalOnAnotherDevicesIrq() throws IOException {
        PassResult r = engine().pass(seed().desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        java.util.List<String> irqEntries = r.originals().keySet().stream()
                .filter(n -> n.startsWith("irq/"))
                .toList();
        assertThat(irqEntries).contains("irq/eth0/41", "irq/eth0/43");
        node.renumberIrqs("eth0", 100); // eth0's queues on 141-144 now; 41-44 an NVMe's
        node.file("proc/irq/43/smp_affinity_list", "5"); // the NVMe driver's own choice

        RevertResult back = engine().revert();

        assertThat(back.complete()).isTrue();
        assertThat(back.gone()).containsAll(irqEntries);
        assertThat(back.restored()).doesNotContainAnyElementsOf(irqEntries).contains("sysctl/vm.swappiness");
        assertThat(node.value("proc/irq/43/smp_affinity_list"))
                .as("the NVMe queue's IRQ")
                .isEqualTo("5");
        assertThat(node.value("proc/irq/143/smp_affinity_list")).isEqualTo("0-7");
        assertThat(Journal.open(journal, java.time.Clock.systemUTC()).entries()).isEmpty();
    }

    /**
     * An interface set down whose driver frees its IRQs (their /proc/interrupts lines go, the vectors stay the
     * device's): a revert gives them their originals back, by number, as they are still the NIC's.
     */
    @Test
    void aRevertWhileTheInterfaceIsDownGivesItsIrqsTheirOriginalsBack() throws IOException {
        PassResult r = engine().pass(seed().desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("proc/irq/43/smp_affinity_list")).isEqualTo("2");
        node.irqsFreed("eth0");

        RevertResult back = engine().revert();

        assertThat(back.complete()).isTrue();
        assertThat(back.restored()).contains("irq/eth0/41", "irq/eth0/43");
        assertThat(node.value("proc/irq/43/smp_affinity_list")).isEqualTo("0-7");
    }

    /**
     * An interface that left the agent's network namespace (moved into a pod's, or renamed): whether its IRQs are still
     * its device's cannot be told, so their originals are written by number, as the journal has them.
     */
    @Test
    void aRevertAfterTheInterfaceLeftTheNamespaceWritesTheIrqOriginalsByNumber() throws IOException {
        PassResult r = engine().pass(seed().desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        node.delete("sys/class/net/eth0");

        RevertResult back = engine().revert();

        assertThat(back.restored()).contains("irq/eth0/41", "irq/eth0/43");
        assertThat(node.value("proc/irq/43/smp_affinity_list")).isEqualTo("0-7");
    }

    /** The same in a pass: the old numbers' entries are released as gone, the new ones tuned and journaled. */
    @Test
    void aPassAfterTheDriverRenumberedItsIrqsTunesTheNewOnesAndLeavesTheOldAlone() throws IOException {
        ApplyEngine e = engine();
        e.pass(seed().desired());
        node.renumberIrqs("eth0", 100);
        node.file("proc/irq/43/smp_affinity_list", "5");

        PassResult r = e.pass(seed().desired());

        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("proc/irq/43/smp_affinity_list"))
                .as("the NVMe queue's IRQ")
                .isEqualTo("5");
        assertThat(node.value("proc/irq/143/smp_affinity_list")).isEqualTo("2");
        assertThat(r.originals()).containsEntry("irq/eth0/143", "0-7").doesNotContainKey("irq/eth0/43");
        assertThat(e.revert().complete()).isTrue();
        assertThat(node.value("proc/irq/143/smp_affinity_list")).isEqualTo("0-7");
        assertThat(node.value("proc/irq/43/smp_affinity_list")).isEqualTo("5");
    }

    @Test
    void rollbackRestoresIrqAffinitiesAsTheyWereBeforeADriverResetThemOnTheQueueChange() throws IOException {
        virtioNode(1);
        node.refuseWrites("sys/class/net/eth0/queues/rx-1/rps_cpus"); // after the channels and every IRQ
        Map<String, String> before = snapshot();
        PassResult r = engine().pass(spec().queues(4).desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.ROLLED_BACK);
        assertThat(snapshot()).isEqualTo(before);
        assertThat(r.originals()).isEmpty();
    }

    @Test
    void onlyIrqAffinitiesThePassChangedKeepAJournalEntry() throws IOException {
        // NIC on node 0: spread wants pairs 0-3 on CPUs 0, 1, 0, 1; the driver's reset already puts them so,
        // and it moved pair 2 (IRQs 33, 34) from 1 to 0: that change is the pass's, the others were no change
        virtioNode(0);
        PassResult r = engine().pass(spec().queues(4).desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(r.originals())
                .containsEntry("irq/eth0/33", "1")
                .containsEntry("irq/eth0/34", "1")
                .doesNotContainKeys(
                        "irq/eth0/29", "irq/eth0/30", "irq/eth0/31", "irq/eth0/32", "irq/eth0/35", "irq/eth0/36");
        engine().revert();
        assertThat(node.value("proc/irq/33/smp_affinity_list")).isEqualTo("1");
    }

    @Test
    void aQueueChangeUnderAPolicyWaitingForItsPodPutsBackTheIrqsTheDriverMovedAndTheirOriginalsStayTrue()
            throws IOException {
        // server-cores before the pod's cgroup exists: the IRQ settings are Pending, the queue change is not
        virtioNode(1);
        PassResult r = engine().pass(spec().queues(4)
                .irq(IrqAffinity.SERVER_CORES)
                .pod("uid-9")
                .desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(cmds.combinedNow("eth0")).isEqualTo(4);
        assertThat(node.value("proc/irq/33/smp_affinity_list"))
                .as("put back after the driver's 0")
                .isEqualTo("1");
        assertThat(node.value("proc/irq/34/smp_affinity_list")).isEqualTo("1");
        assertThat(r.originals()).doesNotContainKeys("irq/eth0/33", "irq/eth0/34");
        assertThat(r.irqsPutBack())
                .contains("irq/eth0/33: moved to 0 by the driver on the queue change, put back to 1"
                        + " (this plan does not set it)");
        assertThat(r.released()).as("nothing was released").isEmpty();

        // the pod arrives, on CPU 0: the originals journaled now are the node's own, not the driver's
        node.pod("uid-9", "0-1", "0");
        PassResult withPod = engine().pass(spec().queues(4)
                .irq(IrqAffinity.SERVER_CORES)
                .pod("uid-9")
                .desired());
        assertThat(withPod.outcome()).as(withPod.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("proc/irq/33/smp_affinity_list")).isEqualTo("0");
        assertThat(withPod.originals()).containsEntry("irq/eth0/33", "1").containsEntry("irq/eth0/34", "1");

        assertThat(engine().revert().complete()).isTrue();
        assertThat(node.value("proc/irq/33/smp_affinity_list")).isEqualTo("1");
        assertThat(node.value("proc/irq/34/smp_affinity_list")).isEqualTo("1");
    }

    @Test
    void aRevertsQueueChangeLeavesTheIrqsItHasNoOriginalForAsTheyWere() throws IOException {
        // the policy still waits for its pod: the journal holds the queue count and no IRQ; virtio_net
        // rewrites every queue IRQ when the revert gives the boot's 2 queues back
        virtioNode(1);
        Map<String, String> before = snapshot();
        PassResult r = engine().pass(spec().queues(4)
                .irq(IrqAffinity.SERVER_CORES)
                .pod("uid-9")
                .desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(r.originals()).containsKey("ethtool/eth0/combined").doesNotContainKey("irq/eth0/33");

        RevertResult back = engine().revert();
        assertThat(back.complete()).isTrue();
        assertThat(cmds.combinedNow("eth0")).isEqualTo(2);
        assertThat(snapshot()).isEqualTo(before);
    }

    /**
     * A revert's queue change moves the IRQs the journal has no original for, and IRQ 33 refuses its put-back: the
     * revert fails, and the retry, with no queue count left to give back, must still give 33 its value from before.
     */
    @Test
    void aRevertWhosePutBackFailsGivesTheIrqBackOnTheRetry() throws IOException {
        virtioNode(1);
        Map<String, String> before = snapshot();
        PassResult r = engine().pass(spec().queues(4)
                .irq(IrqAffinity.SERVER_CORES)
                .pod("uid-9")
                .desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        cmds.afterRunning("ethtool -L eth0 combined 2", () -> node.refuseWrites("proc/irq/33/smp_affinity_list"));
        RevertResult first = engine().revert();
        assertThat(first.complete()).isFalse();
        assertThat(first.failed()).containsKey("irq/eth0/33");

        node.delete("proc/irq/33/smp_affinity_list"); // the IRQ takes writes again, with the driver's value
        node.file("proc/irq/33/smp_affinity_list", "0");
        assertThat(engine().revert().complete()).isTrue();
        assertThat(snapshot()).isEqualTo(before);
    }

    /**
     * The pass puts back the IRQs virtio_net moved on its queue change (the policy waits for its pod), then a sysctl
     * refuses its write; the rollback's own queue change moves IRQ 33 again, and now 33 refuses the put-back too. Its
     * original must still be in the journal, so that a revert can give it back once the IRQ takes writes again.
     */
    @Test
    void aRollbackThatCannotPutBackAnIrqTheDriverMovedKeepsItsOriginal() throws IOException {
        virtioNode(1);
        node.refuseWrites("proc/sys/vm/swappiness");
        cmds.afterRunning("ethtool -L eth0 combined 2", () -> node.refuseWrites("proc/irq/33/smp_affinity_list"));
        PassResult r = engine().pass(spec().queues(4)
                .irq(IrqAffinity.SERVER_CORES)
                .pod("uid-9")
                .sysctls(Map.of("vm.swappiness", "0"))
                .desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.ROLLBACK_INCOMPLETE);
        assertThat(r.error()).contains("irq/eth0/33");
        assertThat(r.originals()).containsEntry("irq/eth0/33", "1");

        node.delete("proc/irq/33/smp_affinity_list"); // the IRQ takes writes again, with the driver's value
        node.file("proc/irq/33/smp_affinity_list", "0");
        assertThat(engine().revert().complete()).isTrue();
        assertThat(node.value("proc/irq/33/smp_affinity_list")).isEqualTo("1");
    }

    /** A put-back that worked is reported as one even when dropping the IRQ's journal entry fails afterwards. */
    @Test
    void anIrqPutBackIsReportedAsDoneWhenItsJournalEntryCannotBeDropped() throws IOException {
        virtioNode(1);
        // from the queue change on, the journal cannot be written (its temp file's name taken by a directory)
        cmds.afterRunning("ethtool -L eth0 combined 4", () -> {
            try {
                Files.createDirectories(journal.resolveSibling(journal.getFileName() + ".tmp"));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        PassResult r = engine().pass(spec().queues(4)
                .irq(IrqAffinity.SERVER_CORES)
                .pod("uid-9")
                .desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("proc/irq/33/smp_affinity_list")).isEqualTo("1");
        assertThat(r.irqsPutBack())
                .contains("irq/eth0/33: moved to 0 by the driver on the queue change, put back to 1"
                        + " (this plan does not set it)")
                .noneMatch(n -> n.contains("failed"));
        assertThat(r.originals()).as("the entries stay, true originals").containsEntry("irq/eth0/33", "1");
    }

    @Test
    void underPolicyNoneAQueueChangeAndItsRevertLeaveTheIrqsAsTheyWere() throws IOException {
        virtioNode(1);
        Map<String, String> before = snapshot();
        PassResult r = engine().pass(spec().queues(4).irq(IrqAffinity.NONE).desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("proc/irq/33/smp_affinity_list"))
                .as("put back after the driver's 0")
                .isEqualTo("1");
        assertThat(engine().revert().complete()).isTrue();
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void aQueueChangeInThePassThatReleasesTheIrqsTakesTheirValuesAfterTheRelease() throws IOException {
        // server-cores with pod A on CPU 0 moves pair 1's IRQs (31, 32) from their boot CPU 1 to 0; then the
        // spec names pod B, whose cgroup is not there yet, and 4 queues: the release gives 31 and 32 their 1
        // back, and the queue change must keep that 1, not pod A's 0 read before the release
        virtioNode(1);
        node.pod("uid-a", "0-1", "0");
        Map<String, String> before = snapshot();
        engine().pass(spec().irq(IrqAffinity.SERVER_CORES).pod("uid-a").desired());
        assertThat(node.value("proc/irq/31/smp_affinity_list")).isEqualTo("0");

        PassResult r = engine().pass(spec().queues(4)
                .irq(IrqAffinity.SERVER_CORES)
                .pod("uid-b")
                .desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("proc/irq/31/smp_affinity_list")).isEqualTo("1");
        assertThat(node.value("proc/irq/32/smp_affinity_list")).isEqualTo("1");
        assertThat(engine().revert().complete()).isTrue();
        assertThat(snapshot()).isEqualTo(before);
    }

    /**
     * The queue count is no longer asked for (the spec tunes another interface now): the pass's release gives eth0 the
     * boot's 2 queues back, virtio_net rewrites every queue IRQ on that change, and the IRQs the journal has no
     * original for are put back, as a revert does.
     */
    @Test
    void releasingAQueueCountPutsBackTheIrqsTheDriverMoved() throws IOException {
        virtioNode(1);
        node.virtualNic("veth0", 1);
        Map<String, String> before = snapshot();
        PassResult r = engine().pass(spec().queues(4)
                .irq(IrqAffinity.SERVER_CORES)
                .pod("uid-9")
                .desired());
        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(r.originals()).containsKey("ethtool/eth0/combined").doesNotContainKey("irq/eth0/33");

        PassResult released = engine().pass(spec().interfaces("veth0")
                .irq(IrqAffinity.SERVER_CORES)
                .pod("uid-9")
                .desired());
        assertThat(released.outcome()).as(released.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(cmds.combinedNow("eth0")).isEqualTo(2);
        assertThat(node.value("proc/irq/33/smp_affinity_list"))
                .as("put back after the driver's 0")
                .isEqualTo("1");
        assertThat(snapshot()).isEqualTo(before);
        assertThat(released.originals()).isEmpty();
        assertThat(released.released())
                .containsExactly("ethtool/eth0/combined: no longer asked for, original 2 restored");
        assertThat(released.irqsPutBack())
                .containsExactly(
                        "irq/eth0/33: moved to 0 by the driver on the queue change, put back to 1",
                        "irq/eth0/34: moved to 0 by the driver on the queue change, put back to 1");
    }

    /**
     * The interface stays tuned but its queue count is no longer asked for, and its driver is one the agent sets no
     * queue count for by default: the release gives back the boot's 4 queues, so the pass must plan for 4 queues, not
     * for the 8 it saw before the release (RFS's per-queue share doubles; the 4 queues that went are no settings).
     */
    @Test
    void aReleasedQueueCountIsPlannedForInTheSamePass() {
        node.nic("eth1", "e1000e", 4, 60, 0);
        cmds.combined("eth1", 8, 4);
        ApplyEngine e = engine();
        PassResult first = e.pass(spec().interfaces("eth1").queues(8).rfs(32768).desired());
        assertThat(first.outcome()).as(first.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("sys/class/net/eth1/queues/rx-0/rps_flow_cnt")).isEqualTo("4096");

        PassResult r = e.pass(spec().interfaces("eth1").rfs(32768).desired());

        assertThat(r.outcome()).as(r.error()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(cmds.combinedNow("eth1")).isEqualTo(4);
        assertThat(r.released())
                .contains(
                        "ethtool/eth1/combined: no longer asked for, original 4 restored",
                        "rfs/eth1/rx-4: no longer asked for and gone");
        assertThat(node.value("sys/class/net/eth1/queues/rx-0/rps_flow_cnt"))
                .as("32768 / 4 queues")
                .isEqualTo("8192");
        assertThat(r.plan().settings()).noneMatch(s -> s.name().contains("rx-4"));
        assertThat(r.originals().keySet()).noneMatch(name -> name.contains("rx-4"));
        assertThat(e.pass(spec().interfaces("eth1").rfs(32768).desired()).plan().changes())
                .isEmpty();
    }

    /** A release that fails in a pass that also gives a queue count back is tried, and said, once. */
    @Test
    void aFailedReleaseBesideAReleasedQueueCountIsTriedAndSaidOnce() {
        node.nic("eth1", "e1000e", 4, 60, 0);
        cmds.combined("eth1", 8, 4);
        ApplyEngine e = engine();
        PassResult first = e.pass(spec().interfaces("eth1")
                .queues(8)
                .rfs(32768)
                .sysctls(Map.of("vm.swappiness", "0"))
                .desired());
        assertThat(first.outcome()).as(first.error()).isEqualTo(PassResult.Outcome.APPLIED);
        node.refuseWrites("proc/sys/vm/swappiness");

        PassResult r = e.pass(spec().interfaces("eth1").rfs(32768).desired());

        assertThat(cmds.combinedNow("eth1")).isEqualTo(4);
        assertThat(r.released().stream().filter(n -> n.startsWith("sysctl/vm.swappiness")))
                .singleElement()
                .asString()
                .contains("restoring 60 failed");
        assertThat(r.noteProblems()).singleElement().asString().startsWith("sysctl/vm.swappiness");
        assertThat(r.released()).noneMatch(n -> n.startsWith("irq/"));
        assertThat(r.originals()).containsKey("sysctl/vm.swappiness");
    }

    @Test
    void aRebootDropsTheEarlierBootsOriginalsSoARevertNeverWritesThemOverThisBootsValues() throws IOException {
        node.file("proc/sys/kernel/random/boot_id", "boot-1");
        engine().pass(seed().desired());
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("0");

        // the reboot: a new boot id, the kernel's boot values back (this boot's sysctl.d says 10), and the
        // NIC's queue interrupts renumbered: 41 now belongs to another device
        node.file("proc/sys/kernel/random/boot_id", "boot-2");
        node.file("proc/sys/vm/swappiness", "10");
        node.file("proc/irq/41/smp_affinity_list", "3");
        ApplyEngine rebooted = engine();
        assertThat(rebooted.earlierBootDropped())
                .hasValueSatisfying(why ->
                        assertThat(why).contains("the node rebooted since the journal of originals was written"));
        assertThat(rebooted.revert().restored())
                .as("nothing of the earlier boot")
                .isEmpty();
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("10");
        assertThat(node.value("proc/irq/41/smp_affinity_list")).isEqualTo("3");

        PassResult r = rebooted.pass(seed().desired());
        assertThat(r.originals()).containsEntry("sysctl/vm.swappiness", "10");
        assertThat(engine().earlierBootDropped()).as("the same boot keeps them").isEmpty();
        engine().revert();
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("10");
        assertThat(node.value("proc/irq/41/smp_affinity_list")).isEqualTo("3");
    }

    @Test
    void invalidValueIsRefusedBeforeAnyWrite() throws IOException {
        Map<String, String> before = snapshot();
        PassResult r = engine().pass(spec().sysctls(Map.of("net.ipv4.tcp_mem", "300 200 100", "vm.swappiness", "0"))
                .desired());
        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.INVALID);
        assertThat(r.plan().find("sysctl/net.ipv4.tcp_mem").orElseThrow().message())
                .contains("non-decreasing");
        assertThat(r.plan().find("sysctl/vm.swappiness").orElseThrow().state()).isEqualTo(SettingState.PENDING);
        assertThat(snapshot()).isEqualTo(before);
        assertThat(cmds.log()).noneMatch(c -> c.startsWith("ethtool -C"));

        PassResult huge = engine().pass(spec().sysctls(Map.of("net.ipv4.tcp_mem", "1 2 99999999999999999999"))
                .desired());
        assertThat(huge.outcome()).as("refused, not thrown").isEqualTo(PassResult.Outcome.INVALID);
        assertThat(huge.plan().find("sysctl/net.ipv4.tcp_mem").orElseThrow().message())
                .contains("too large");
        assertThat(snapshot()).isEqualTo(before);
    }

    @Test
    void planModeReportsTheDiffAndChangesNothing() throws IOException {
        Map<String, String> before = snapshot();
        PassResult r = engine().pass(seed().plan().desired());
        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.PLANNED);
        assertThat(r.plan().find("sysctl/vm.swappiness").orElseThrow().state()).isEqualTo(SettingState.PLANNED);
        assertThat(r.plan().find("sysctl/vm.swappiness").orElseThrow().current())
                .isEqualTo("60");
        assertThat(snapshot()).isEqualTo(before);
        assertThat(journal).doesNotExist();
        assertThat(cmds.log()).noneMatch(c -> c.startsWith("ethtool -C") || c.startsWith("ethtool -L"));
    }

    @Test
    void driftIsDetectedReportedAndReapplied() {
        ApplyEngine e = engine();
        e.pass(seed().desired());
        node.file("proc/sys/vm/swappiness", "30");
        node.file("proc/irq/42/smp_affinity_list", "0-7");

        PassResult r = e.pass(seed().desired());

        assertThat(r.drifted()).extracting(Setting::name).containsExactly("sysctl/vm.swappiness", "irq/eth0/42");
        assertThat(r.drifted()).extracting(Setting::current).containsExactly("30", "0-7");
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("0");
        assertThat(node.value("proc/irq/42/smp_affinity_list")).isEqualTo("1");
        assertThat(r.originals()).containsEntry("sysctl/vm.swappiness", "60"); // still the value from before the agent
    }

    @Test
    void driftIsReportedOnlyByAPassThatReappliesIt() {
        ApplyEngine e = engine();
        e.pass(seed().desired());
        node.file("proc/sys/vm/swappiness", "30");

        // Plan mode (the same fingerprint: the mode is not part of it) re-applies nothing
        PassResult planned = e.pass(seed().plan().desired());
        assertThat(planned.outcome()).isEqualTo(PassResult.Outcome.PLANNED);
        assertThat(planned.drifted()).isEmpty();
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("30");

        // a pass that fails on another drifted setting restores what it found: nothing re-applied either
        node.file("sys/class/net/eth0/queues/rx-2/rps_cpus", "0");
        node.refuseWrites("sys/class/net/eth0/queues/rx-2/rps_cpus");
        PassResult rolledBack = e.pass(seed().desired());
        assertThat(rolledBack.outcome()).isEqualTo(PassResult.Outcome.ROLLED_BACK);
        assertThat(rolledBack.drifted()).isEmpty();
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("30");
    }

    @Test
    void journalSurvivesARestartAndTheNewAgentRevertsExactly() throws IOException {
        Map<String, String> before = snapshot();
        engine().pass(seed().queues(8).desired());
        assertThat(snapshot()).isNotEqualTo(before);

        // a new agent process: only the journal file carries the originals over
        ApplyEngine restarted = engine();
        PassResult again = restarted.pass(seed().queues(8).desired());
        assertThat(again.wrote()).isFalse();
        assertThat(again.originals())
                .containsEntry("sysctl/vm.swappiness", "60")
                .containsEntry("ethtool/eth0/combined", "4");

        RevertResult rev = engine().revert();

        assertThat(rev.complete()).isTrue();
        assertThat(rev.restored()).contains("sysctl/net.ipv4.tcp_mem", "ethtool/eth0/combined", "irq/eth0/41");
        assertThat(snapshot()).isEqualTo(before); // byte for byte, tabs of tcp_mem included; queues 4-7 gone again
        assertThat(cmds.combinedNow("eth0")).isEqualTo(4);
        assertThat(cmds.coalesce("eth0", "adaptive-rx")).isEqualTo("on");
        assertThat(Journal.open(journal, java.time.Clock.systemUTC()).entries()).isEmpty();
    }

    @Test
    void settingNoLongerAskedForGetsItsOriginalBack() {
        ApplyEngine e = engine();
        e.pass(seed().desired());
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("0");

        PassResult r = e.pass(seed().sysctls(Map.of("vm.min_free_kbytes", "1048576"))
                .irq(IrqAffinity.NONE)
                .desired());

        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("60");
        assertThat(node.value("proc/irq/41/smp_affinity_list")).isEqualTo("0-7");
        assertThat(r.released()).contains("sysctl/vm.swappiness: no longer asked for, original 60 restored");
        assertThat(r.originals()).doesNotContainKey("sysctl/vm.swappiness").containsKey("sysctl/vm.min_free_kbytes");
    }

    @Test
    void serverPodSettingsApplyOnceItsCgroupExistsAndAreRestoredOnRevert() {
        node.pod("uid-7", "0-7", "0-7", "4-5");
        PassResult r = engine().pass(seed().irq(IrqAffinity.SERVER_CORES)
                .relax(1)
                .interleave()
                .pod("uid-7")
                .desired());
        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("proc/irq/41/smp_affinity_list")).isEqualTo("4");
        assertThat(node.value("proc/irq/42/smp_affinity_list")).isEqualTo("5");
        assertThat(node.value("sys/class/net/eth0/queues/rx-0/rps_cpus")).isEqualTo("30");
        assertThat(node.value("sys/fs/cgroup/cpuset/kubepods/poduid-7/cpuset.sched_relax_domain_level"))
                .isEqualTo("1");
        assertThat(node.value("sys/fs/cgroup/cpuset/kubepods/poduid-7/cpuset.memory_spread_page"))
                .isEqualTo("1");

        assertThat(engine().revert().complete()).isTrue();
        assertThat(node.value("sys/fs/cgroup/cpuset/kubepods/poduid-7/cpuset.sched_relax_domain_level"))
                .isEqualTo("-1");
    }

    @Test
    void revertOfAPodThatIsGoneDropsItsEntries() {
        node.pod("uid-7", "0-7", "2-3");
        engine().pass(spec().relax(1).pod("uid-7").desired());
        node.delete("sys/fs/cgroup/cpuset/kubepods/poduid-7");
        RevertResult r = engine().revert();
        assertThat(r.complete()).isTrue();
        // the queue count comes back first, so queues 4-7 (the agent's) are gone with their RPS settings
        assertThat(r.gone())
                .containsExactly(
                        "cpuset/sched_relax_domain_level",
                        "rps/eth0/rx-7",
                        "rps/eth0/rx-6",
                        "rps/eth0/rx-5",
                        "rps/eth0/rx-4");
    }

    @Test
    void kernelModuleIsLoadedWithModprobeAndUnloadedOnRevert() {
        node.installedModule("tls", "kernel/net/tls/tls.ko.xz");
        PassResult r = engine().pass(spec().modules("tls").desired());
        assertThat(r.plan().find("module/tls").orElseThrow().state()).isEqualTo(SettingState.APPLIED);
        assertThat(cmds.log()).contains("modprobe -d " + node.root() + " tls");
        engine().revert();
        assertThat(cmds.log()).contains("modprobe -r -d " + node.root() + " tls");
    }

    /**
     * A module built into the kernel without parameters has no /sys/module directory: it is in the
     * kernel already, so nothing is run and nothing journaled (modprobe would change nothing and the
     * module would never read back as loaded: every pass failed at its first step, and its rollback's
     * modprobe -r failed on a built-in).
     */
    @Test
    void aBuiltInModuleIsAlreadyLoaded() {
        node.builtinModule("kernel/net/sched/sch_netem.ko");
        PassResult r = engine().pass(spec().modules("sch_netem").desired());
        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(r.plan().find("module/sch_netem").orElseThrow().current()).isEqualTo("loaded");
        assertThat(cmds.log()).noneMatch(c -> c.startsWith("modprobe"));
        assertThat(r.originals()).doesNotContainKey("module/sch_netem");
    }

    @Test
    void failedRevertKeepsTheEntryForTheNextTry() {
        engine().pass(seed().desired());
        cmds.failOn("ethtool -C eth0 adaptive-rx", "Cannot set device coalesce parameters: Device or resource busy");
        RevertResult r = engine().revert();
        assertThat(r.complete()).isFalse();
        assertThat(r.failed()).containsKey("ethtool/eth0/adaptive-rx");
        assertThat(r.failed().get("ethtool/eth0/adaptive-rx")).contains("Device or resource busy");
        assertThat(Journal.open(journal, java.time.Clock.systemUTC()).entries())
                .extracting(Journal.Entry::name)
                .containsExactly("ethtool/eth0/adaptive-rx");
        cmds.clearFailures();
        assertThat(engine().revert().complete()).isTrue();
        assertThat(cmds.coalesce("eth0", "adaptive-rx")).isEqualTo("on");
    }

    static final String OFFLOAD = "ethtool/eth0/tls-hw-tx-offload";

    @Test
    void tlsTxOffloadIsTurnedOnJournaledKeptAndTurnedOffOnRevert() {
        cmds.feature("eth0", "tls-hw-tx-offload", false, false);
        ApplyEngine e = engine();
        PassResult r = e.pass(seed().tlsTxOffload(true).desired());

        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.APPLIED);
        Setting s = r.plan().find(OFFLOAD).orElseThrow();
        assertThat(s.state()).isEqualTo(SettingState.APPLIED);
        assertThat(s.current()).isEqualTo("on");
        assertThat(cmds.featureNow("eth0", "tls-hw-tx-offload")).isEqualTo("on");
        assertThat(cmds.log()).contains("ethtool -K eth0 tls-hw-tx-offload on");
        assertThat(r.originals()).containsEntry(OFFLOAD, "off");

        // the next pass finds it on: nothing written, still reported Applied (the agent set it)
        int commands = cmds.log().size();
        PassResult again = e.pass(seed().tlsTxOffload(true).desired());
        assertThat(again.wrote()).isFalse();
        assertThat(again.plan().find(OFFLOAD).orElseThrow().state()).isEqualTo(SettingState.APPLIED);
        assertThat(cmds.log().subList(commands, cmds.log().size())).noneMatch(c -> c.startsWith("ethtool -K"));

        // someone turns it off: drift, put back
        cmds.feature("eth0", "tls-hw-tx-offload", false, false);
        PassResult drift = e.pass(seed().tlsTxOffload(true).desired());
        assertThat(drift.drifted()).extracting(Setting::name).containsExactly(OFFLOAD);
        assertThat(cmds.featureNow("eth0", "tls-hw-tx-offload")).isEqualTo("on");
        assertThat(drift.originals()).containsEntry(OFFLOAD, "off");

        RevertResult rev = engine().revert();
        assertThat(rev.complete()).isTrue();
        assertThat(rev.restored()).contains(OFFLOAD);
        assertThat(cmds.featureNow("eth0", "tls-hw-tx-offload")).isEqualTo("off");
        assertThat(cmds.log()).endsWith("ethtool -k eth0", "ethtool -K eth0 tls-hw-tx-offload off", "ethtool -k eth0");
    }

    @Test
    void offloadNoLongerAskedForIsTurnedBackOff() {
        cmds.feature("eth0", "tls-hw-tx-offload", false, false);
        ApplyEngine e = engine();
        e.pass(seed().tlsTxOffload(true).desired());
        assertThat(cmds.featureNow("eth0", "tls-hw-tx-offload")).isEqualTo("on");

        PassResult r = e.pass(seed().desired());

        assertThat(cmds.featureNow("eth0", "tls-hw-tx-offload")).isEqualTo("off");
        assertThat(r.released()).contains(OFFLOAD + ": no longer asked for, original off restored");
        assertThat(r.originals()).doesNotContainKey(OFFLOAD);
        assertThat(r.plan().find(OFFLOAD)).isEmpty();
    }

    @Test
    void fixedOffNicIsUnsupportedAndTheRestOfThePassApplies() {
        // no feature set up: the fake NIC shows tls-hw-tx-offload: off [fixed], as virtio and veth do
        PassResult r = engine().pass(seed().tlsTxOffload(true).desired());
        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.APPLIED);
        Setting s = r.plan().find(OFFLOAD).orElseThrow();
        assertThat(s.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(s.message())
                .isEqualTo("eth0 (mlx5_core) has no TLS TX offload (ethtool -k: tls-hw-tx-offload off [fixed]): "
                        + "the edge server uses kernel TLS in software");
        assertThat(cmds.log()).noneMatch(c -> c.startsWith("ethtool -K"));
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("0");
        assertThat(r.originals()).doesNotContainKey(OFFLOAD);
    }

    @Test
    void nicThatRefusesRollsThePassBackOnceThenTheNextPassReportsItAndAppliesTheRest() {
        cmds.featureKeptOff("eth0", "tls-hw-tx-offload");
        ApplyEngine e = engine();
        PassResult first = e.pass(seed().queues(8).tlsTxOffload(true).desired());
        assertThat(first.outcome()).isEqualTo(PassResult.Outcome.ROLLED_BACK);
        assertThat(first.error())
                .startsWith(OFFLOAD
                        + ": ethtool -K eth0 tls-hw-tx-offload on: exit 1: Could not change any device features");
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("60");
        assertThat(cmds.combinedNow("eth0"))
                .as("the queue change before it was rolled back")
                .isEqualTo(4);

        // the kernel now shows it asked on and kept off: the planner knows a write would fail again
        PassResult second = e.pass(seed().queues(8).tlsTxOffload(true).desired());
        assertThat(second.outcome()).isEqualTo(PassResult.Outcome.APPLIED);
        Setting s = second.plan().find(OFFLOAD).orElseThrow();
        assertThat(s.state()).isEqualTo(SettingState.UNSUPPORTED);
        assertThat(s.message()).contains("off [requested on]");
        assertThat(node.value("proc/sys/vm/swappiness")).isEqualTo("0");
        assertThat(cmds.combinedNow("eth0")).isEqualTo(8);
    }

    @Test
    void aMinimumIsRaisedJournaledKeptAgainstDriftAndRestoredWhileALargerValueIsLeftAlone() throws IOException {
        node.file("proc/sys/net/core/wmem_max", "212992").file("proc/sys/net/core/rmem_max", "16777216");
        Map<String, String> before = snapshot();
        Specs spec = spec().queues(4).minimums(Map.of("net.core.wmem_max", 4194304L, "net.core.rmem_max", 212992L));
        ApplyEngine e = engine();

        PassResult r = e.pass(spec.desired());
        assertThat(r.outcome()).isEqualTo(PassResult.Outcome.APPLIED);
        assertThat(node.value("proc/sys/net/core/wmem_max")).isEqualTo("4194304");
        assertThat(r.originals()).containsEntry("sysctl/net.core.wmem_max", "212992");
        Setting w = r.plan().find("sysctl/net.core.wmem_max").orElseThrow();
        assertThat(w.state()).isEqualTo(SettingState.APPLIED);
        assertThat(w.current()).isEqualTo("4194304");
        // the administrator's 16 MiB stays: no write, no journal entry, said so
        assertThat(node.value("proc/sys/net/core/rmem_max")).isEqualTo("16777216");
        assertThat(r.originals()).doesNotContainKey("sysctl/net.core.rmem_max");
        Setting rm = r.plan().find("sysctl/net.core.rmem_max").orElseThrow();
        assertThat(rm.state()).isEqualTo(SettingState.UNCHANGED);
        assertThat(rm.message()).isEqualTo("already at least 212992 (the node has 16777216): left as it is");

        // someone raises wmem_max further: no drift, left as it is; someone lowers it: drift, raised again
        node.file("proc/sys/net/core/wmem_max", "8388608");
        PassResult higher = e.pass(spec.desired());
        assertThat(higher.drifted()).isEmpty();
        assertThat(higher.wrote()).isFalse();
        assertThat(node.value("proc/sys/net/core/wmem_max")).isEqualTo("8388608");
        node.file("proc/sys/net/core/wmem_max", "65536");
        PassResult lowered = e.pass(spec.desired());
        assertThat(lowered.drifted()).extracting(Setting::name).containsExactly("sysctl/net.core.wmem_max");
        assertThat(node.value("proc/sys/net/core/wmem_max")).isEqualTo("4194304");

        RevertResult back = e.revert();
        assertThat(back.failed()).isEmpty();
        assertThat(back.restored()).contains("sysctl/net.core.wmem_max");
        assertThat(snapshot()).isEqualTo(before);
    }
}
