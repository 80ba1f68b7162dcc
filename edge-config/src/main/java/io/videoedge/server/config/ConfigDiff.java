package io.videoedge.server.config;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import one.nio.config.Config;

/**
 * Every field in which two configs differ, as a path in the file's own terms
 * ({@code acceptors[0].sendBuf}, {@code cache.memory}, {@code origin}). It walks the same fields as
 * ConfigParser and {@link ConfigSchema} (one-nio's and ours, inherited ones included), so a field
 * nobody thought of is still reported, and {@link LiveFields} then decides whether it needs a restart.
 * Compare configs as parsed from files, not the ones the server adjusted at start.
 */
public final class ConfigDiff {
    private ConfigDiff() {}

    /** One difference. {@code before}/{@code after} are the field values (null: unset or absent). */
    public record Change(String path, Object before, Object after) {
        /** The path with list indices removed: {@code acceptors[].sendBuf}. */
        public String field() {
            return path.replaceAll("\\[\\d+]", "[]");
        }

        @Override
        public String toString() {
            return path + ": " + show(before) + " -> " + show(after);
        }
    }

    public static List<Change> between(EdgeServerConfig before, EdgeServerConfig after) {
        List<Change> changes = new ArrayList<>();
        bean("", EdgeServerConfig.class, before, after, changes);
        return changes;
    }

    private static void bean(String path, Class<?> type, Object a, Object b, List<Change> out) {
        for (Map.Entry<String, Field> e : ConfigSchema.fieldsOf(type).entrySet()) {
            Field f = e.getValue();
            if (!f.trySetAccessible()) {
                throw new IllegalStateException("cannot read config field " + type.getName() + "." + f.getName());
            }
            Object va;
            Object vb;
            try {
                va = f.get(a);
                vb = f.get(b);
            } catch (IllegalAccessException ex) {
                throw new IllegalStateException(ex);
            }
            value(path.isEmpty() ? e.getKey() : path + "." + e.getKey(), f.getType(), va, vb, out);
        }
    }

    private static void value(String path, Class<?> type, Object a, Object b, List<Change> out) {
        if (a == null && b == null) {
            return;
        }
        if (isBean(type)) {
            if (a == null || b == null) {
                out.add(new Change(path, a == null ? null : "(section)", b == null ? null : "(section)"));
            } else {
                bean(path, type, a, b, out);
            }
        } else if (type.isArray() && isBean(type.getComponentType())) {
            int na = a == null ? 0 : Array.getLength(a);
            int nb = b == null ? 0 : Array.getLength(b);
            for (int i = 0; i < Math.max(na, nb); i++) {
                Object ia = i < na ? Array.get(a, i) : null;
                Object ib = i < nb ? Array.get(b, i) : null;
                value(path + "[" + i + "]", type.getComponentType(), ia, ib, out);
            }
        } else if (!same(a, b)) {
            out.add(new Change(path, a, b));
        }
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof Map<?, ?> ma && b instanceof Map<?, ?> mb) {
            if (!ma.keySet().equals(mb.keySet())) return false;
            for (Map.Entry<?, ?> e : ma.entrySet()) {
                if (!Objects.deepEquals(e.getValue(), mb.get(e.getKey()))) return false;
            }
            return true;
        }
        return Objects.deepEquals(a, b);
    }

    private static boolean isBean(Class<?> type) {
        return type.isAnnotationPresent(Config.class);
    }

    static String show(Object v) {
        if (v == null) return "unset";
        if (v instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (sb.length() > 1) sb.append(", ");
                sb.append(e.getKey()).append('=').append(show(e.getValue()));
            }
            return sb.append('}').toString();
        }
        if (v instanceof Object[] arr) return Arrays.deepToString(arr);
        if (v.getClass().isArray()) {
            StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < Array.getLength(v); i++) {
                if (i > 0) sb.append(", ");
                sb.append(Array.get(v, i));
            }
            return sb.append(']').toString();
        }
        return v.toString();
    }
}
