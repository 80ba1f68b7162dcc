package io.videoedge.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.videoedge.agent.facts.NicFacts;
import io.videoedge.agent.facts.NodeFacts;
import io.videoedge.agent.facts.PodFacts;
import io.videoedge.agent.facts.ProbeRequest;
import io.videoedge.agent.host.HostFs;
import io.videoedge.agent.testing.FakeCommands;
import io.videoedge.agent.testing.FakeNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The probe against a fake /proc and /sys tree laid out as the kernel does. */
class ProberTest {
    @TempDir
    Path root;

    @Test
    void findsCpusNumaDriverQueuesAndQueueIrqsWithoutControlVectors() {
        FakeNode node = new FakeNode(root).numa(16, 2).defaultRoute("eth0").nic("eth0", "mlx5_core", 4, 40, 1);
        FakeCommands cmds = new FakeCommands(node).combined("eth0", 16, 4).coalescing("eth0", "on", 8, 16);
        NodeFacts f = new Prober(new HostFs(root), cmds)
                .probe(new ProbeRequest(List.of(), Set.of("vm.swappiness", "net.no.such"), null));

        assertThat(f.kernel()).isEqualTo("6.18.0-test");
        assertThat(f.onlineCpus().toList()).isEqualTo("0-15");
        assertThat(f.possibleCpus()).isEqualTo(16);
        assertThat(f.numaNodes()).hasSize(2);
        assertThat(f.nodeOf(9)).isEqualTo(1);
        assertThat(f.defaultRouteInterface()).isEqualTo("eth0");
        NicFacts nic = f.nics().get("eth0");
        assertThat(nic.driver()).isEqualTo("mlx5_core");
        assertThat(nic.numaNode()).isEqualTo(1);
        assertThat(nic.rxQueues()).containsExactly("rx-0", "rx-1", "rx-2", "rx-3");
        assertThat(nic.queueIrqs()).containsExactly(41, 42, 43, 44); // 40 is mlx5_async, a control vector
        assertThat(nic.irqAffinity()).containsEntry(41, "0-15");
        assertThat(nic.channels().combined()).isEqualTo(4);
        assertThat(nic.coalescing()).containsEntry("adaptive-rx", "on").containsEntry("rx-usecs", "8");
        assertThat(f.sysctls()).containsOnlyKeys("vm.swappiness").containsEntry("vm.swappiness", "60");
        assertThat(f.ktls()).isEqualTo("unavailable");
        assertThat(f.cgroupVersion()).isEqualTo("v1");
    }

    /** The IRQs a device has, for a restore to tell its own (Restorer): its function's MSI vectors, labelled or not. */
    @Test
    void aDevicesIrqsAreItsFunctionsMsiVectors() {
        FakeNode node =
                new FakeNode(root).cpus(2).nic("eth0", "mlx5_core", 2, 40, 0).nic("eth1", "virtio_net", 2, 60, 0);
        node.file("sys/devices/pci0000:00/msi_irqs/24", "msi"); // a bridge's above them (PME, AER): not theirs
        Prober p = new Prober(new HostFs(root), new FakeCommands(node));

        assertThat(p.deviceIrqs("eth0")).containsExactly(40, 41, 42);
        assertThat(p.deviceIrqs("eth1")).as("virtio: its PCI function's").containsExactly(60, 61, 62, 63, 64);
        node.irqsFreed("eth0");
        assertThat(p.deviceIrqs("eth0"))
                .as("down, its IRQs freed: the vectors stay")
                .containsExactly(40, 41, 42);
        assertThat(p.deviceIrqs("eth9"))
                .as("not in this network namespace: cannot be told")
                .isNull();
        node.virtualNic("veth0", 1);
        assertThat(p.deviceIrqs("veth0")).as("no device").isNull();
        // a driver that gives its vectors back while down (or legacy interrupts): its function lists none
        node.vectorsReleased("eth0");
        assertThat(p.deviceIrqs("eth0"))
                .as("a function listing no vector: cannot be told")
                .isNull();
    }

    @Test
    void aNicTheSpecDoesNotTuneIsProbedForItsCapabilitiesOnly() {
        FakeNode node = new FakeNode(root)
                .cpus(4)
                .defaultRoute("eth0")
                .nic("eth0", "mlx5_core", 2, 40, 0)
                .nic("eth1", "mlx5_core", 2, 50, 0);
        FakeCommands cmds = new FakeCommands(node)
                .combined("eth0", 4, 2)
                .combined("eth1", 4, 2)
                .coalescing("eth0", "on", 8, 16)
                .coalescing("eth1", "on", 8, 16);
        NodeFacts f = new Prober(new HostFs(root), cmds).probe(new ProbeRequest(List.of(), Set.of(), null));

        NicFacts other = f.nics().get("eth1");
        assertThat(other.queueIrqs()).containsExactly(51, 52);
        assertThat(other.channels().combined()).isEqualTo(2);
        assertThat(other.irqAffinity()).isEmpty();
        assertThat(other.rpsCpus()).isEmpty();
        assertThat(other.coalescing()).isNull();
        assertThat(cmds.log()).doesNotContain("ethtool -c eth1");
        assertThat(f.nics().get("eth0").rpsCpus()).containsOnlyKeys("rx-0", "rx-1");
        assertThat(f.nics().get("eth0").coalescing()).containsEntry("rx-usecs", "8");
    }

    @Test
    void tlsTxOffloadIsReadForEveryNicAsOnOffAndFixed() {
        FakeNode node = new FakeNode(root)
                .cpus(4)
                .defaultRoute("eth0")
                .nic("eth0", "mlx5_core", 2, 40, 0)
                .nic("eth1", "virtio_net", 1, 50, -1)
                .nic("eth2", "mlx5_core", 1, 60, 0);
        FakeCommands cmds = new FakeCommands(node)
                .feature("eth0", "tls-hw-tx-offload", false, false)
                .feature("eth2", "tls-hw-tx-offload", true, false);
        NodeFacts f = new Prober(new HostFs(root), cmds).probe(new ProbeRequest(List.of(), Set.of(), null));

        assertThat(f.nics().get("eth0").tlsTxOffload()).isEqualTo(new NicFacts.Feature(false, false, false));
        assertThat(f.nics().get("eth1").tlsTxOffload()).isEqualTo(new NicFacts.Feature(false, true, false));
        assertThat(f.nics().get("eth2").tlsTxOffload()).isEqualTo(new NicFacts.Feature(true, false, true));
        assertThat(new Prober(new HostFs(root), new FakeCommands(node).without("ethtool"))
                        .probe(new ProbeRequest(List.of(), Set.of(), null))
                        .nics()
                        .get("eth0")
                        .tlsTxOffload())
                .isNull();
    }

    @Test
    void virtioQueueIrqsAndNumaNodeAreFoundOnThePciParentOfTheVirtioDevice() {
        // as make vm-test's guest shows it: virtio2 under the PCI function, input.N and output.N per pair
        FakeNode node = new FakeNode(root).numa(2, 2).nic("eth0", "virtio_net", 2, 37, 1);
        NodeFacts f = new Prober(new HostFs(root), new FakeCommands(node))
                .probe(new ProbeRequest(List.of("eth0"), Set.of(), null));
        NicFacts nic = f.nics().get("eth0");
        assertThat(nic.driver()).isEqualTo("virtio_net");
        assertThat(nic.numaNode()).isEqualTo(1);
        assertThat(nic.queueIrqs()).containsExactly(38, 39, 40, 41);
        assertThat(nic.irqQueues()).containsExactly(entry(38, 0), entry(39, 0), entry(40, 1), entry(41, 1));
    }

    @Test
    void queueNumbersComeFromTheIrqNames() {
        assertThat(Prober.queueNumber("virtio2-output.3")).contains(3);
        assertThat(Prober.queueNumber("mlx5_comp12@pci:0000:3b:00.0")).contains(12);
        assertThat(Prober.queueNumber("i40e-eth0-TxRx-7")).contains(7);
        assertThat(Prober.queueNumber("eth0-Tx-Rx-0")).contains(0);
        assertThat(Prober.queueNumber("eth0-rx")).isEmpty();
    }

    @Test
    void virtioWithoutNotificationCoalescingHasNoRxUsecsThoughEthtoolShowsZero() {
        // virtio_net (6.1) lists rx-usecs: 0 and refuses any other value unless the device offers
        // VIRTIO_NET_F_NOTF_COAL
        FakeNode node = new FakeNode(root).cpus(2).nic("eth0", "virtio_net", 2, 37, -1);
        FakeCommands cmds = new FakeCommands(node).coalescing("eth0", "n/a", 0, 0);
        NodeFacts f = new Prober(new HostFs(root), cmds).probe(new ProbeRequest(List.of("eth0"), Set.of(), null));
        assertThat(f.nics().get("eth0").coalescing()).doesNotContainKeys("rx-usecs", "tx-usecs");

        node.virtioCoalescing("eth0");
        NodeFacts offered = new Prober(new HostFs(root), cmds).probe(new ProbeRequest(List.of("eth0"), Set.of(), null));
        assertThat(offered.nics().get("eth0").coalescing())
                .containsEntry("rx-usecs", "0")
                .containsEntry("tx-usecs", "0");
    }

    @Test
    void findsTheServerPodsCgroupAndTakesItsPinnedContainersCpus() {
        FakeNode node = new FakeNode(root).cpus(8).pod("1234-ab", "0-7", "0-7", "2-3");
        NodeFacts f = new Prober(new HostFs(root), new FakeCommands(node))
                .probe(new ProbeRequest(List.of(), Set.of(), "1234-ab"));
        PodFacts pod = f.pod().orElseThrow();
        assertThat(pod.cpusetDir()).isEqualTo("sys/fs/cgroup/cpuset/kubepods/pod1234-ab");
        assertThat(pod.cpus().toList()).isEqualTo("2-3");
        assertThat(pod.relaxDomainLevel()).isEqualTo("-1");
    }

    @Test
    void systemdDriverPodCgroupIsFoundToo() {
        FakeNode node = new FakeNode(root)
                .cpus(4)
                .file("sys/fs/cgroup/cpuset/kubepods.slice/kubepods-pod1234_ab.slice/cpuset.cpus", "1")
                .file(
                        "sys/fs/cgroup/cpuset/kubepods.slice/kubepods-pod1234_ab.slice/cpuset.sched_relax_domain_level",
                        "-1");
        NodeFacts f = new Prober(new HostFs(root), new FakeCommands(node))
                .probe(new ProbeRequest(List.of(), Set.of(), "1234-ab"));
        assertThat(f.pod().orElseThrow().found()).isTrue();
        assertThat(f.pod().orElseThrow().cpus().toList()).isEqualTo("1");
    }

    @Test
    void podCgroupIsFoundBelowAKubeletCgroupRootAsKindConfiguresIt() {
        // kind: cgroupDriver systemd, cgroupRoot /kubelet (seen on a kind v0.33 node with cgroup v1); the
        // cgroupfs-style kubelet/ directory of the same root exists too and holds no pods
        FakeNode node = new FakeNode(root)
                .cpus(2)
                .file("sys/fs/cgroup/cpuset/kubelet/cpuset.cpus", "0-1")
                .file("sys/fs/cgroup/cpuset/system.slice/containerd.service/cpuset.cpus", "0-1")
                .file(
                        "sys/fs/cgroup/cpuset/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-besteffort.slice/cpuset.cpus",
                        "0-1")
                .file(
                        "sys/fs/cgroup/cpuset/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod1234_ab.slice/cpuset.cpus",
                        "0-1")
                .file(
                        "sys/fs/cgroup/cpuset/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod1234_ab.slice/"
                                + "cri-containerd-c1.scope/cpuset.cpus",
                        "1")
                .file(
                        "sys/fs/cgroup/cpuset/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod1234_ab.slice/"
                                + "cpuset.sched_relax_domain_level",
                        "-1");
        NodeFacts f = new Prober(new HostFs(root), new FakeCommands(node))
                .probe(new ProbeRequest(List.of(), Set.of(), "1234-ab"));
        PodFacts pod = f.pod().orElseThrow();
        assertThat(pod.found()).isTrue();
        assertThat(pod.cpusetDir())
                .isEqualTo(
                        "sys/fs/cgroup/cpuset/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-pod1234_ab.slice");
        assertThat(pod.cpus().toList()).isEqualTo("1");
        assertThat(pod.relaxDomainLevel()).isEqualTo("-1");
    }

    @Test
    void burstablePodCgroupIsFoundBelowACgroupfsCgroupRoot() {
        FakeNode node = new FakeNode(root)
                .cpus(4)
                .file("sys/fs/cgroup/cpuset/custom/kubepods/burstable/pod1234-ab/cpuset.cpus", "0-3");
        NodeFacts f = new Prober(new HostFs(root), new FakeCommands(node))
                .probe(new ProbeRequest(List.of(), Set.of(), "1234-ab"));
        assertThat(f.pod().orElseThrow().cpusetDir())
                .isEqualTo("sys/fs/cgroup/cpuset/custom/kubepods/burstable/pod1234-ab");
    }

    @Test
    void anotherPodsCgroupIsNotTakenForTheServerPod() {
        FakeNode node = new FakeNode(root)
                .cpus(4)
                .file("sys/fs/cgroup/cpuset/kubepods.slice/kubepods-pod9999_zz.slice/cpuset.cpus", "1");
        NodeFacts f = new Prober(new HostFs(root), new FakeCommands(node))
                .probe(new ProbeRequest(List.of(), Set.of(), "1234-ab"));
        assertThat(f.pod().orElseThrow().found()).isFalse();
    }

    @Test
    void isolatedCpusComeFromIsolcpusAndNohzFull() {
        FakeNode node = new FakeNode(root);
        Prober prober = new Prober(new HostFs(root), new FakeCommands(node));
        node.file("sys/devices/system/cpu/isolated", "\n");
        node.file("sys/devices/system/cpu/nohz_full", "(null)\n");
        assertThat(prober.probe(new ProbeRequest(List.of(), Set.of(), null))
                        .isolatedCpus()
                        .isEmpty())
                .isTrue();
        node.file("sys/devices/system/cpu/isolated", "4-5\n");
        node.file("sys/devices/system/cpu/nohz_full", "6,7\n");
        assertThat(prober.probe(new ProbeRequest(List.of(), Set.of(), null))
                        .isolatedCpus()
                        .toList())
                .isEqualTo("4-7");
    }

    @Test
    void kernelTlsIsLoadableWhenTheModuleFileIsInstalledAndAvailableWhenTheUlpIsRegistered() {
        FakeNode node = new FakeNode(root).installedModule("tls", "kernel/net/tls/tls.ko.xz");
        Prober prober = new Prober(new HostFs(root), new FakeCommands(node));
        assertThat(prober.probe(new ProbeRequest(List.of(), Set.of(), null)).ktls())
                .isEqualTo("loadable");
        node.file("proc/sys/net/ipv4/tcp_available_ulp", "espintcp mptcp tls");
        assertThat(prober.probe(new ProbeRequest(List.of(), Set.of(), null)).ktls())
                .isEqualTo("available");
    }
}
