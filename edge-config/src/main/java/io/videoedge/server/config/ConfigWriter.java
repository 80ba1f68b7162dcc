package io.videoedge.server.config;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiFunction;
import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * Writes a config value as the text {@link ConfigLoader} reads (one-nio ConfigParser's format): only the
 * fields that differ from a fresh instance's defaults, in declaration order (one-nio's fields first),
 * sizes and times in the largest exact unit ({@code 4m}, {@code 120s}). The operator renders the
 * server's config with it, so what it writes is what the server's own loader parses back, field for
 * field ({@code ConfigWriterTest} round-trips it).
 *
 * <pre>
 * selectors: 2
 * acceptors:
 * - port: 8080
 *   sendBuf: 4m
 * cache:
 *   memory: 128m
 * </pre>
 */
public final class ConfigWriter {
    /** What a view returns for a field that is not to be written at all. */
    public static final Object OMIT = new Object();

    private final StringBuilder out = new StringBuilder();
    private final BiFunction<String, Object, Object> view;

    private ConfigWriter(BiFunction<String, Object, Object> view) {
        this.view = view;
    }

    /** The text of {@code config} (an object of a {@link Config} class), comment lines first. */
    public static String write(Object config, String... comments) {
        return write(config, (path, value) -> value, comments);
    }

    /**
     * The text with each leaf value passed through {@code view} first (its path as {@link ConfigDiff}
     * names fields, {@code acceptors[].sendBuf}): e.g. live fields masked for a restart checksum; a
     * field the view maps to {@link #OMIT} is not written.
     */
    public static String write(Object config, BiFunction<String, Object, Object> view, String... comments) {
        ConfigWriter w = new ConfigWriter(view);
        for (String c : comments) {
            w.out.append("# ").append(c).append('\n');
        }
        w.bean(config, "", "", "");
        return w.out.toString();
    }

    /** Writes the fields of {@code bean} that differ from its class's defaults; the first line gets {@code firstIndent}. */
    private void bean(Object bean, String path, String firstIndent, String indent) {
        Object defaults = newInstance(bean.getClass());
        String lead = firstIndent;
        for (Field f : fields(bean.getClass())) {
            Object value = get(f, bean);
            if (Objects.deepEquals(value, get(f, defaults)) || value == null) {
                continue;
            }
            String name = path.isEmpty() ? f.getName() : path + "." + f.getName();
            if (isBean(f.getType())) {
                int before = out.length();
                out.append(lead).append(f.getName()).append(":\n");
                int header = out.length();
                bean(value, name, indent + "  ", indent + "  ");
                if (out.length() == header) {
                    out.setLength(before); // a section with nothing but defaults: nothing to say
                    continue;
                }
            } else if (f.getType().isArray() && isBean(f.getType().getComponentType())) {
                out.append(lead).append(f.getName()).append(":\n");
                for (int i = 0; i < Array.getLength(value); i++) {
                    Object item = Array.get(value, i);
                    int before = out.length();
                    bean(item, name + "[]", indent + "- ", indent + "  ");
                    if (out.length() == before) {
                        throw new IllegalArgumentException(
                                name + "[" + i + "] has only defaults: ConfigParser needs a field per list item");
                    }
                }
            } else {
                Object shown = view.apply(name, value);
                if (shown == OMIT) continue;
                out.append(lead)
                        .append(f.getName())
                        .append(": ")
                        .append(scalar(f, shown))
                        .append('\n');
            }
            lead = indent;
        }
    }

    private static String scalar(Field f, Object value) {
        if (value.getClass().isArray()) {
            List<String> items = new ArrayList<>();
            for (int i = 0; i < Array.getLength(value); i++) {
                items.add(String.valueOf(Array.get(value, i)));
            }
            return String.join(", ", items);
        }
        if (value instanceof java.util.Map<?, ?>) {
            throw new IllegalArgumentException(f.getName() + ": maps are not written");
        }
        Converter c = f.getAnnotation(Converter.class);
        if (c != null && value instanceof Number n) {
            return switch (c.method()) {
                case "size", "longSize" -> size(n.longValue());
                case "time", "longTime" -> time(n.longValue());
                default -> String.valueOf(value);
            };
        }
        String text = String.valueOf(value);
        if (text.isEmpty() || text.contains("\n") || text.contains(" #") || !text.equals(text.strip())) {
            throw new IllegalArgumentException(
                    f.getName() + ": " + text + " cannot be written as one ConfigParser value");
        }
        return text;
    }

    /** Bytes in the largest exact unit of 1024 (ConfigParser's size converter: k, m, g). */
    static String size(long bytes) {
        String[] units = {"g", "m", "k"};
        long[] factors = {1L << 30, 1L << 20, 1L << 10};
        for (int i = 0; i < units.length; i++) {
            if (bytes != 0 && bytes % factors[i] == 0) {
                return bytes / factors[i] + units[i];
            }
        }
        return Long.toString(bytes);
    }

    /** Milliseconds in the largest exact unit (ConfigParser's time converter: d, h, m, s, ms). */
    static String time(long millis) {
        String[] units = {"d", "h", "m", "s"};
        long[] factors = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
        for (int i = 0; i < units.length; i++) {
            if (millis != 0 && millis % factors[i] == 0) {
                return millis / factors[i] + units[i];
            }
        }
        return millis + "ms";
    }

    /**
     * The fields ConfigParser reads (no static, transient or synthetic ones, as {@link ConfigSchema}),
     * the superclass's first, each in declaration order.
     */
    static List<Field> fields(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        if (type.getSuperclass() != null && type.getSuperclass() != Object.class) {
            fields.addAll(fields(type.getSuperclass()));
        }
        for (Field f : type.getDeclaredFields()) {
            if ((f.getModifiers() & (Modifier.STATIC | Modifier.TRANSIENT | 0x1000)) == 0 && f.trySetAccessible()) {
                fields.add(f);
            }
        }
        return fields;
    }

    /** A section (a nested config object), as ConfigParser and {@link ConfigDiff} see one. */
    static boolean isBean(Class<?> type) {
        return type.isAnnotationPresent(Config.class);
    }

    private static Object get(Field f, Object bean) {
        try {
            return f.get(bean);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object newInstance(Class<?> type) {
        try {
            return type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(type.getName() + " has no public no-argument constructor", e);
        }
    }
}
