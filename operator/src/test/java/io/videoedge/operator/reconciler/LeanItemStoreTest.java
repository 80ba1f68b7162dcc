package io.videoedge.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import io.videoedge.api.SettingState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LeanItemStoreTest {
    static ManagedFieldsEntry entry(String manager, String operation) {
        return new ManagedFieldsEntryBuilder()
                .withManager(manager)
                .withOperation(operation)
                .withApiVersion("v1")
                .build();
    }

    @Test
    void nodeTuningsKeepTheApplyEntriesTheSsaMatcherComparesAndDropTheAgentsUpdates() {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName("edge-1");
        nt.getMetadata()
                .setManagedFields(
                        List.of(entry("videoedge", "Apply"), entry("agent", "Update"), entry("agent", "Update")));
        LeanItemStore<NodeTuning> store = LeanItemStore.nodeTunings();
        store.put(store.getKey(nt), nt);
        assertThat(store.get("edge-1").getMetadata().getManagedFields())
                .extracting(ManagedFieldsEntry::getManager, ManagedFieldsEntry::getOperation)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("videoedge", "Apply"));
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.keySet()).containsExactly("edge-1");
    }

    @Test
    void podsKeepNoManagedFieldsAndEverythingElse() {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("video")
                .withManagedFields(entry("kubelet", "Update"), entry("videoedge", "Update"))
                .addToLabels("app", "edge")
                .endMetadata()
                .withNewSpec()
                .withNodeName("edge-1")
                .endSpec()
                .build();
        LeanItemStore<Pod> store = LeanItemStore.noManagedFields();
        store.put(store.getKey(pod), pod);
        Pod kept = store.get("video/p");
        assertThat(kept.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(kept.getMetadata().getLabels()).containsEntry("app", "edge");
        assertThat(kept.getSpec().getNodeName()).isEqualTo("edge-1");
        assertThat(store.remove("video/p")).isSameAs(kept);
        assertThat(store.values()).isEmpty();
    }

    @Test
    void edgeServerPodsKeepWhatTheOperatorReadsAndNothingElse() {
        Pod pod = new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("video")
                .withUid("u1")
                .withManagedFields(entry("kubelet", "Update"))
                .addToLabels("app", "edge")
                .addToAnnotations("videoedge.io/pod-revision", "r1")
                .endMetadata()
                .withNewSpec()
                .withNodeName("edge-1")
                .addNewContainer()
                .withName("edge-server")
                .withImage("videoedge/edge-server:dev")
                .endContainer()
                .addNewVolume()
                .withName("cache")
                .endVolume()
                .endSpec()
                .withNewStatus()
                .withPhase("Running")
                .withPodIP("10.0.0.7")
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .addNewContainerStatus()
                .withName("edge-server")
                .withReady(true)
                .withStarted(true)
                .withRestartCount(2)
                .withImage("videoedge/edge-server:dev")
                .withNewState()
                .withNewRunning()
                .withStartedAt("2026-11-24T00:00:00Z")
                .endRunning()
                .endState()
                .endContainerStatus()
                .endStatus()
                .build();
        LeanItemStore<Pod> store = LeanItemStore.slimPods();
        store.put(store.getKey(pod), pod);
        Pod kept = store.get("video/p");
        assertThat(kept.getMetadata().getManagedFields()).isNullOrEmpty();
        assertThat(kept.getMetadata().getUid()).isEqualTo("u1");
        assertThat(kept.getMetadata().getAnnotations()).containsEntry("videoedge.io/pod-revision", "r1");
        assertThat(kept.getSpec().getNodeName()).isEqualTo("edge-1");
        assertThat(kept.getSpec().getContainers()).isEmpty();
        assertThat(kept.getSpec().getVolumes()).isEmpty();
        assertThat(kept.getStatus().getPhase()).isEqualTo("Running");
        assertThat(kept.getStatus().getPodIP()).isNull();
        assertThat(kept.getStatus().getConditions()).singleElement().satisfies(c -> {
            assertThat(c.getType()).isEqualTo("Ready");
            assertThat(c.getStatus()).isEqualTo("True");
        });
        assertThat(kept.getStatus().getContainerStatuses()).singleElement().satisfies(c -> {
            assertThat(c.getName()).isEqualTo("edge-server");
            assertThat(c.getStarted()).isTrue();
            assertThat(c.getReady()).isTrue();
            assertThat(c.getRestartCount()).isEqualTo(2);
            assertThat(c.getImage()).isNull();
            assertThat(c.getState()).isNull();
        });
        // the informer's own object is not changed (its event handlers get it whole)
        assertThat(pod.getSpec().getContainers()).hasSize(1);
    }

    static NodeTuning appliedBy(String name, Map<String, Object> fields) {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName(name);
        var entry = entry("videoedge", "Apply");
        var f = new FieldsV1();
        f.setAdditionalProperties(fields);
        entry.setFieldsV1(f);
        nt.getMetadata().setManagedFields(List.of(entry, entry("agent", "Update")));
        return nt;
    }

    static Map<String, Object> specFields(String sysctl) {
        Map<String, Object> sysctls = new LinkedHashMap<>();
        sysctls.put("f:" + sysctl, new LinkedHashMap<>());
        Map<String, Object> tuning = new LinkedHashMap<>();
        tuning.put("f:sysctls", sysctls);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("f:tuning", tuning);
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("f:spec", spec);
        return fields;
    }

    @Test
    void equalFieldSetsAreOneSharedReadOnlyCopyAndADifferentOneIsItsOwn() {
        LeanItemStore<NodeTuning> store = LeanItemStore.nodeTunings();
        for (int i = 0; i < 100; i++) {
            NodeTuning nt = appliedBy("edge-" + i, specFields("vm.swappiness"));
            store.put(store.getKey(nt), nt);
        }
        NodeTuning other = appliedBy("edge-x", specFields("vm.min_free_kbytes"));
        store.put(store.getKey(other), other);
        FieldsV1 first =
                store.get("edge-0").getMetadata().getManagedFields().getFirst().getFieldsV1();
        assertThat(store.get("edge-99")
                        .getMetadata()
                        .getManagedFields()
                        .getFirst()
                        .getFieldsV1())
                .isSameAs(first);
        FieldsV1 own =
                store.get("edge-x").getMetadata().getManagedFields().getFirst().getFieldsV1();
        assertThat(own).isNotSameAs(first).isNotEqualTo(first);
        assertThat(own.getAdditionalProperties()).isEqualTo(specFields("vm.min_free_kbytes"));
        assertThat(store.fieldSets()).isEqualTo(2);
        // what JOSDK's matcher reads is the tree as the API server sent it, and it cannot be changed in place
        assertThat(first.getAdditionalProperties()).isEqualTo(specFields("vm.swappiness"));
        @SuppressWarnings("unchecked")
        var spec = (Map<String, Object>) first.getAdditionalProperties().get("f:spec");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> spec.put("f:nic", Map.of()))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    static NodeTuning reported(String node, String swappiness) {
        NodeTuning nt = new NodeTuning();
        nt.getMetadata().setName(node);
        List<NodeTuningStatus.Setting> settings = List.of(
                new NodeTuningStatus.Setting(
                        "sysctl/net.ipv4.tcp_congestion_control", "bbr", "bbr", "cubic", SettingState.APPLIED, null),
                new NodeTuningStatus.Setting(
                        "sysctl/vm.swappiness", "0", swappiness, "60", SettingState.APPLIED, null));
        nt.setStatus(new NodeTuningStatus(
                3L, List.of(), "applied", "f-" + node, "2026-11-25T00:00:00Z", settings, null, null, null));
        return nt;
    }

    @Test
    void equalSettingsOfTheAgentsStatusesAreOneSharedCopyAndTheStatusIsOtherwiseAsReported() {
        LeanItemStore<NodeTuning> store = LeanItemStore.nodeTunings();
        for (int i = 0; i < 100; i++) {
            NodeTuning nt = reported("edge-" + i, "0");
            store.put(store.getKey(nt), nt);
        }
        NodeTuning drifted = reported("edge-x", "10");
        store.put(store.getKey(drifted), drifted);

        var first = store.get("edge-0").getStatus().settings();
        var last = store.get("edge-99").getStatus().settings();
        assertThat(last.get(0)).isSameAs(first.get(0));
        assertThat(last.get(1)).isSameAs(first.get(1));
        var own = store.get("edge-x").getStatus().settings();
        assertThat(own.get(0)).isSameAs(first.get(0));
        assertThat(own.get(1))
                .isNotSameAs(first.get(1))
                .isEqualTo(reported("edge-x", "10").getStatus().settings().get(1));
        // nothing else of the status changes, and the shared list cannot be changed in place
        assertThat(store.get("edge-x").getStatus())
                .isEqualTo(reported("edge-x", "10").getStatus());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> own.add(null))
                .isInstanceOf(UnsupportedOperationException.class);
        // a NodeTuning without a status yet is kept as it is
        NodeTuning fresh = new NodeTuning();
        fresh.getMetadata().setName("edge-new");
        store.put(store.getKey(fresh), fresh);
        assertThat(store.get("edge-new").getStatus()).isNull();
    }

    @Test
    void theSharingIsBounded() {
        var pool = new LeanItemStore.Interner<String>(3);
        for (int i = 0; i < 10; i++) {
            pool.intern("value-" + i, java.util.function.UnaryOperator.identity());
        }
        assertThat(pool.size()).isLessThanOrEqualTo(3);
        String a = new String("again");
        assertThat(pool.intern(new String("again"), java.util.function.UnaryOperator.identity()))
                .isSameAs(pool.intern(a, java.util.function.UnaryOperator.identity()));
    }
}
