package io.videoedge.operator.reconciler;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.cache.BasicItemStore;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.ItemStore;
import io.videoedge.api.NodeTuning;
import io.videoedge.api.NodeTuningStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * An informer's store that keeps each object without the {@code managedFields} entries the operator
 * never reads: at scale they are most of a cached object (a nested map per field each manager wrote:
 * an agent's status of 25 settings is hundreds of maps). {@link #nodeTunings()} keeps the server-side
 * apply entries, which JOSDK's SSA matcher compares with what it would apply, each field set shared by
 * every object that has an equal one ({@link #interned}); {@link #nodeTunings()} does the same and
 * shares each setting of an agent's status with every equal one; {@link #noManagedFields()}
 * keeps none, for objects the operator does not apply; {@link #slimPods()} keeps of a pod only what
 * the operator reads ({@link SlimPod}).
 */
public final class LeanItemStore<T extends HasMetadata> implements ItemStore<T> {
    private final BasicItemStore<T> store = new BasicItemStore<>(Cache::metaNamespaceKeyFunc);
    /** More distinct field sets than this and the interning starts over (a bound, never reached in practice). */
    static final int MAX_FIELD_SETS = 1024;

    private final Predicate<ManagedFieldsEntry> keep;
    private final UnaryOperator<T> slim;
    private final Interner<FieldsV1> fieldSets = new Interner<>(MAX_FIELD_SETS);

    private LeanItemStore(Predicate<ManagedFieldsEntry> keep, UnaryOperator<T> slim) {
        this.keep = keep;
        this.slim = slim;
    }

    /** The managedFields entries of server-side apply, which JOSDK's SSA matcher compares. */
    private static final Predicate<ManagedFieldsEntry> APPLIED = e -> "Apply".equals(e.getOperation());

    /**
     * NodeTunings: the managedFields entries of server-side apply (operation Apply, the rest dropped), and each setting of the agent's status one
     * shared copy per distinct setting. An agent reports every setting it manages (name, desired, actual,
     * original, state, message: 21 settings and 105 strings per node in the scale bench), and on a fleet
     * of like nodes they are equal: at 5,000 nodes, 105,000 settings and half a million strings, a fifth
     * of the live heap.
     */
    public static LeanItemStore<NodeTuning> nodeTunings() {
        Interner<NodeTuningStatus.Setting> settings = new Interner<>(MAX_SETTINGS);
        return new LeanItemStore<>(APPLIED, nt -> withSharedSettings(nt, settings));
    }

    /** More distinct settings than this and their sharing starts over (a bound, not reached on a uniform fleet). */
    static final int MAX_SETTINGS = 16_384;

    /** {@code nt} with its status' settings replaced by the shared equal ones. */
    static NodeTuning withSharedSettings(NodeTuning nt, Interner<NodeTuningStatus.Setting> pool) {
        NodeTuningStatus s = nt.getStatus();
        if (s == null || s.settings() == null || s.settings().isEmpty()) {
            return nt;
        }
        List<NodeTuningStatus.Setting> shared = new ArrayList<>(s.settings().size());
        for (NodeTuningStatus.Setting setting : s.settings()) {
            shared.add(setting == null ? null : pool.intern(setting, UnaryOperator.identity()));
        }
        nt.setStatus(new NodeTuningStatus(
                s.observedGeneration(),
                s.conditions(),
                s.message(),
                s.fingerprint(),
                s.lastAppliedTime(),
                Collections.unmodifiableList(shared),
                s.capabilities(),
                s.lastDrift(),
                s.effect()));
        return nt;
    }

    /** Keeps no managedFields. */
    public static <T extends HasMetadata> LeanItemStore<T> noManagedFields() {
        return new LeanItemStore<>(e -> false, UnaryOperator.identity());
    }

    /** Keeps each edge-server pod as {@link SlimPod#of}: what the operator reads of a pod, no more. */
    public static LeanItemStore<Pod> slimPods() {
        return new LeanItemStore<>(e -> false, SlimPod::of);
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
        object = slim.apply(object);
        if (object.getMetadata() != null && object.getMetadata().getManagedFields() != null) {
            List<ManagedFieldsEntry> kept = kept(object, keep);
            if (kept != null) {
                kept.forEach(e -> e.setFieldsV1(interned(e.getFieldsV1())));
            }
            object.getMetadata().setManagedFields(kept);
        }
        return store.put(key, object);
    }

    /**
     * One shared, read-only copy per distinct field set. A field set is a tree of a map per field (each
     * leaf an empty map); the operator applies the same fields to each of its NodeTunings, so 5,000 of
     * them held 5,000 equal trees, about 60 maps each: most of the maps in the operator's heap.
     */
    FieldsV1 interned(FieldsV1 fields) {
        return fields == null ? null : fieldSets.intern(fields, LeanItemStore::frozen);
    }

    private static FieldsV1 frozen(FieldsV1 fields) {
        FieldsV1 frozen = new FieldsV1();
        frozen.setAdditionalProperties(frozen(fields.getAdditionalProperties()));
        return frozen;
    }

    /** A read-only deep copy of a field set's tree (its readers never write: a write would throw). */
    @SuppressWarnings("unchecked")
    static Map<String, Object> frozen(Map<String, Object> tree) {
        if (tree == null) {
            return null;
        }
        Map<String, Object> copy = new LinkedHashMap<>(tree.size() * 4 / 3 + 1);
        tree.forEach((k, v) -> copy.put(k, v instanceof Map<?, ?> m ? frozen((Map<String, Object>) m) : v));
        return Collections.unmodifiableMap(copy);
    }

    int fieldSets() {
        return fieldSets.size();
    }

    /**
     * One shared instance per distinct value, at most {@code max} of them (then it starts over: what is
     * shared already stays shared, later values are shared among themselves). Values must be immutable,
     * or made so by the {@code keep} function that makes the stored copy.
     */
    static final class Interner<V> {
        private final Map<V, V> known = new ConcurrentHashMap<>();
        private final int max;

        Interner(int max) {
            this.max = max;
        }

        V intern(V value, UnaryOperator<V> keep) {
            V shared = known.get(value);
            if (shared != null) {
                return shared;
            }
            if (known.size() >= max) {
                known.clear();
            }
            V kept = keep.apply(value);
            V raced = known.putIfAbsent(kept, kept);
            return raced == null ? kept : raced;
        }

        int size() {
            return known.size();
        }
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
