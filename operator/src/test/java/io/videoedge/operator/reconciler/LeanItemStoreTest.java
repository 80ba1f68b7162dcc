package io.videoedge.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.videoedge.api.NodeTuning;
import java.util.List;
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
        LeanItemStore<NodeTuning> store = LeanItemStore.onlyApplied();
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
}
