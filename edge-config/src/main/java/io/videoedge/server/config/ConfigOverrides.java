package io.videoedge.server.config;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import one.nio.config.Converter;
import one.nio.config.DefaultConverters;

/**
 * Sets fields of a config value by path, with values written as in the config file: the one way every
 * other config (make run, the bench, the tests' fixture) is made from the golden rendering
 * (testdata/edge-server/edge-server.yaml) plus what differs there, so that no second copy of the config
 * text is kept by hand. Paths as {@link ConfigDiff} prints them: {@code selectors},
 * {@code acceptors[1].ssl.certFile}, {@code acceptors[].address} (every acceptor),
 * {@code origin.url} (a missing section is created). An empty value removes: a list item
 * ({@code acceptors[1]=}), a section or a text field ({@code cache.disk.path=}, back to unset).
 *
 * <pre>
 * java -cp 'edge-config.jar:one-nio.jar' io.videoedge.server.config.ConfigOverrides \
 *     testdata/edge-server/edge-server.yaml 'acceptors[].address=127.0.0.1' acceptors[0].port=18080 ...
 * </pre>
 */
public final class ConfigOverrides {
    private ConfigOverrides() {}

    /** Reads {@code args[0]}, applies {@code args[1..]} (path=value), prints the result. */
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: ConfigOverrides BASE.yaml [path=value ...]");
            System.exit(2);
        }
        EdgeServerConfig c =
                ConfigLoader.parse(java.nio.file.Files.readString(java.nio.file.Path.of(args[0])), args[0]);
        List<String> sets = new ArrayList<>(List.of(args).subList(1, args.length));
        apply(c, sets);
        List<String> problems = ConfigLoader.problems(c, "the result");
        if (!problems.isEmpty()) {
            System.err.println(String.join("\n", problems));
            System.exit(2);
        }
        System.out.print(ConfigWriter.write(c, "made from " + args[0] + " with: " + String.join(" ", sets)));
    }

    /** Applies each {@code path=value}, in order. */
    public static EdgeServerConfig apply(EdgeServerConfig config, List<String> sets) {
        for (String set : sets) {
            int eq = set.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(set + ": expected path=value");
            }
            set(config, set.substring(0, eq), set.substring(eq + 1));
        }
        return config;
    }

    public static EdgeServerConfig apply(EdgeServerConfig config, Map<String, String> sets) {
        sets.forEach((path, value) -> set(config, path, value));
        return config;
    }

    static void set(Object root, String path, String value) {
        String[] parts = path.split("\\.");
        set(root, parts, 0, path, value);
    }

    private static void set(Object bean, String[] parts, int i, String path, String value) {
        String part = parts[i];
        String name = part.contains("[") ? part.substring(0, part.indexOf('[')) : part;
        Field f = field(bean.getClass(), name, path);
        if (part.contains("[")) {
            String index = part.substring(part.indexOf('[') + 1, part.indexOf(']'));
            Object array = get(f, bean);
            if (array == null) {
                throw new IllegalArgumentException(path + ": " + name + " has no items");
            }
            if (i == parts.length - 1) {
                if (!value.isEmpty()) {
                    throw new IllegalArgumentException(path + ": a list item is removed with an empty value, not set");
                }
                put(f, bean, remove(array, Integer.parseInt(index)));
                return;
            }
            int n = Array.getLength(array);
            for (int k = 0; k < n; k++) {
                if (index.isEmpty() || Integer.parseInt(index) == k) {
                    set(Array.get(array, k), parts, i + 1, path, value);
                }
            }
            return;
        }
        if (i == parts.length - 1) {
            if (value.isEmpty() && !f.getType().isPrimitive()) {
                put(f, bean, null);
            } else {
                put(f, bean, convert(f, value, path));
            }
            return;
        }
        Object child = get(f, bean);
        if (child == null) {
            child = newInstance(f.getType());
            put(f, bean, child);
        }
        set(child, parts, i + 1, path, value);
    }

    private static Object convert(Field f, String value, String path) {
        Class<?> t = f.getType();
        Converter c = f.getAnnotation(Converter.class);
        try {
            if (c != null && !t.isArray()) {
                return switch (c.method()) {
                    case "size" -> DefaultConverters.size(value);
                    case "longSize" -> DefaultConverters.longSize(value);
                    case "time" -> DefaultConverters.time(value);
                    case "longTime" -> DefaultConverters.longTime(value);
                    default ->
                        throw new IllegalArgumentException(
                                path + ": converter " + c.method() + " is not supported here");
                };
            }
            if (t == String.class) return value;
            if (t == int.class || t == Integer.class) return Integer.parseInt(value);
            if (t == long.class || t == Long.class) return Long.parseLong(value);
            if (t == boolean.class || t == Boolean.class) {
                if (!value.equals("true") && !value.equals("false"))
                    throw new IllegalArgumentException("not true or false");
                return Boolean.parseBoolean(value);
            }
            if (t == String[].class) return value.split("\\s*,\\s*");
            if (t.isEnum()) return enumValue(t, value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(path + ": " + value + " is not a number", e);
        }
        throw new IllegalArgumentException(path + ": fields of type " + t.getSimpleName() + " are not set here");
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumValue(Class<?> t, String value) {
        return Enum.valueOf((Class<Enum>) t, value);
    }

    private static Field field(Class<?> type, String name, String path) {
        for (Field f : ConfigWriter.fields(type)) {
            if (f.getName().equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException(path + ": no field " + name + " in " + type.getSimpleName());
    }

    private static Object remove(Object array, int index) {
        int n = Array.getLength(array);
        Object out = Array.newInstance(array.getClass().getComponentType(), n - 1);
        for (int k = 0, j = 0; k < n; k++) {
            if (k != index) Array.set(out, j++, Array.get(array, k));
        }
        return out;
    }

    private static Object get(Field f, Object bean) {
        try {
            return f.get(bean);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void put(Field f, Object bean, Object value) {
        try {
            f.set(bean, value);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object newInstance(Class<?> type) {
        try {
            return type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(type.getName() + " cannot be created", e);
        }
    }
}
