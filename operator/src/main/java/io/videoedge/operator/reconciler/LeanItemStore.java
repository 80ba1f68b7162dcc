package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * An informer's store that keeps each object without the {@code managedFields} entries the operator
 * never reads: at scale they are most of a cached object (a nested map per field each manager wrote:
 * an agent's status of 25 settings is hundreds of maps). {@link #onlyApplied()} keeps the server-side
 * apply entries, which JOSDK's SSA matcher compares with what it would apply; {@link #noManagedFields()}
 * keeps none, for objects the operator does not apply.
 */
public final class LeanItemStore<T extends HasMetadata> implements ItemStore<T> {
    private final BasicItemStore<T> store = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);
    private final Predicate<ManagedFieldsEntry> keep;

    private LeanItemStore(Predicate<ManagedFieldsEntry> keep) {
        this.keep = keep;
    }

    /** Keeps the managedFields of server-side apply (operation Apply), drops the rest. */
    public static <T extends HasMetadata> LeanItemStore<T> onlyApplied() {
        return new LeanItemStore<>(e -> "Apply".equals(e.getOperation()));
    }

    /** Keeps no managedFields. */
    public static <T extends HasMetadata> LeanItemStore<T> noManagedFields() {
        return new LeanItemStore<>(e -> false);
    }

    /** The entries of {@code object} that stay (null for none). Pure. */
    static List<ManagedFieldsEntry> kept(HasMetadata object, Predicate<ManagedFieldsEntry> keep) {
        List<ManagedFieldsEntry> all = object.getMetadata().getManagedFields();
        if (all == null) {
            return null;
        }
        List<ManagedFieldsEntry> kept = new ArrayList<>();
        for (ManagedFieldsEntry e : all) {
            if (keep.test(e)) {
                kept.add(e);
            }
        }
        return kept.isEmpty() ? null : kept;
    }

    @Override
    public T put(String key, T object) {
        if (object.getMetadata() != null && object.getMetadata().getManagedFields() != null) {
            object.getMetadata().setManagedFields(kept(object, keep));
        }
        return store.put(key, object);
    }

    @Override
    public String getKey(T object) {
        return store.getKey(object);
    }

    @Override
    public T remove(String key) {
        return store.remove(key);
    }

    @Override
    public Stream<String> keySet() {
        return store.keySet();
    }

    @Override
    public Stream<T> values() {
        return store.values();
    }

    @Override
    public int size() {
        return store.size();
    }

    @Override
    public T get(String key) {
        return store.get(key);
    }
}
