package io.videoedge.server.config;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * Checks a config text against the config classes before ConfigParser sees it, so that every problem
 * is reported as {@code file:line: field.path: what is wrong}. ConfigParser itself says
 * "Unknown field: &lt;line&gt;" or "For input string: x" without the field or the file, and silently
 * reads any boolean other than "true" as false. The walk follows ConfigParser's layout rules:
 * nested sections by indentation, list items with '-', inline scalar lists "a, b".
 */
final class ConfigSchema {
    private final String source;
    private final List<String> problems = new ArrayList<>();
    private final Deque<Frame> stack = new ArrayDeque<>();

    private ConfigSchema(String source) {
        this.source = source;
    }

    /** Returns the problems found, empty when the text fits the classes. */
    static List<String> check(String normalizedText, Class<?> rootType, String source) {
        ConfigSchema schema = new ConfigSchema(source);
        schema.walk(normalizedText.split("\n", -1), rootType);
        return schema.problems;
    }

    private sealed interface Frame permits BeanFrame, ListFrame, OpaqueFrame {}

    /** Keys of one bean; {@code indent} is fixed by its first key line. */
    private static final class BeanFrame implements Frame {
        final Class<?> type;
        final String path;
        final int minIndent;
        int indent = -1;

        BeanFrame(Class<?> type, String path, int minIndent) {
            this.type = type;
            this.path = path;
            this.minIndent = minIndent;
        }
    }

    /** Items of a list field declared at {@code keyIndent}. */
    private record ListFrame(Class<?> elementType, String path, int keyIndent, int[] count) implements Frame {}

    /** A map or other free-form value: everything indented deeper than its key is skipped. */
    private record OpaqueFrame(int keyIndent) implements Frame {}

    private void walk(String[] lines, Class<?> rootType) {
        stack.push(new BeanFrame(rootType, "", 0));
        boolean empty = true;
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n];
            int indent = indentOf(line);
            if (indent < 0) continue; // blank or comment
            empty = false;
            line(n + 1, indent, line.substring(indent));
        }
        if (empty) {
            problems.add(source + ": the file has no settings");
        }
    }

    private void line(int lineNo, int indent, String content) {
        boolean dash = content.equals("-") || content.startsWith("- ");
        while (true) {
            Frame top = stack.peek();
            if (top instanceof OpaqueFrame o && indent <= o.keyIndent()) {
                stack.pop();
            } else if (top instanceof ListFrame l && (!dash || indent < l.keyIndent())) {
                stack.pop();
            } else if (top instanceof BeanFrame b
                    && stack.size() > 1
                    && (b.indent >= 0 ? indent < b.indent || (dash && indent == b.indent) : indent < b.minIndent)) {
                stack.pop();
            } else {
                break;
            }
        }
        Frame top = stack.peek();
        if (top instanceof OpaqueFrame) {
            return;
        }
        if (dash) {
            if (!(top instanceof ListFrame list)) {
                problem(lineNo, pathOf(top), "a list item '-' where no list is expected");
                stack.push(new OpaqueFrame(indent));
                return;
            }
            listItem(lineNo, indent, content, list);
            return;
        }
        BeanFrame bean = (BeanFrame) top;
        if (bean.indent < 0) {
            bean.indent = indent;
        } else if (indent != bean.indent) {
            problem(lineNo, bean.path, "bad indentation (" + indent + " spaces, expected " + bean.indent + ")");
            stack.push(new OpaqueFrame(indent - 1));
            return;
        }
        keyLine(lineNo, indent, content, bean);
    }

    private void listItem(int lineNo, int indent, String content, ListFrame list) {
        int index = list.count()[0]++;
        String path = list.path() + "[" + index + "]";
        String rest = content.length() > 1 ? content.substring(2) : "";
        int restIndent = indent + 2 + (rest.length() - rest.stripLeading().length());
        rest = rest.strip();
        Class<?> type = list.elementType();
        if (isBean(type)) {
            BeanFrame item = new BeanFrame(type, path, indent + 1);
            stack.push(item);
            if (!rest.isEmpty()) {
                item.indent = restIndent;
                keyLine(lineNo, restIndent, rest, item);
            }
        } else if (rest.isEmpty()) {
            problem(lineNo, path, "empty list item");
        } else {
            scalar(lineNo, path, type, null, rest);
        }
    }

    private void keyLine(int lineNo, int indent, String content, BeanFrame bean) {
        int colon = content.indexOf(':');
        if (colon <= 0) {
            problem(lineNo, bean.path, "expected 'field: value', found '" + content + "'");
            stack.push(new OpaqueFrame(indent));
            return;
        }
        String key = content.substring(0, colon).trim();
        String value = content.substring(colon + 1).trim();
        String path = bean.path.isEmpty() ? key : bean.path + "." + key;
        Map<String, Field> fields = fieldsOf(bean.type);
        Field field = fields.get(key);
        if (field == null) {
            problem(lineNo, path, "unknown field" + suggestion(key, fields.keySet()));
            stack.push(new OpaqueFrame(indent));
            return;
        }
        if (value.startsWith("&") || value.startsWith("*")) {
            stack.push(new OpaqueFrame(indent)); // ConfigParser anchors and references: not checked here
            return;
        }
        Class<?> type = field.getType();
        Converter converter = field.getAnnotation(Converter.class);
        if (type.isArray() || Collection.class.isAssignableFrom(type)) {
            Class<?> element = type.isArray() ? type.getComponentType() : String.class;
            if (value.isEmpty()) {
                stack.push(new ListFrame(element, path, indent, new int[1]));
            } else if (isBean(element)) {
                problem(lineNo, path, "expects a list of sections ('- field: value' lines below it)");
            } else {
                String inline =
                        value.startsWith("[") && value.endsWith("]") ? value.substring(1, value.length() - 1) : value;
                for (String element1 : inline.split(",")) {
                    scalar(lineNo, path, element, null, element1.trim());
                }
            }
        } else if (converter != null) {
            scalar(lineNo, path, type, converter, value);
        } else if (isBean(type)) {
            if (!value.isEmpty()) {
                problem(lineNo, path, "expects a section (fields indented below it), found '" + value + "'");
            } else {
                stack.push(new BeanFrame(type, path, indent + 1));
            }
        } else if (Map.class.isAssignableFrom(type)) {
            stack.push(new OpaqueFrame(indent));
        } else {
            scalar(lineNo, path, type, null, value);
        }
    }

    private void scalar(int lineNo, String path, Class<?> type, Converter converter, String value) {
        if (value.isEmpty()) {
            problem(lineNo, path, "missing value");
            return;
        }
        try {
            if (converter != null) {
                Method m = findConverter(converter.value(), converter.method());
                Object sender = Modifier.isStatic(m.getModifiers())
                        ? null
                        : converter.value().getDeclaredConstructor().newInstance();
                Object result = m.invoke(sender, value);
                if (isIntSize(m) && result instanceof Integer && DefaultSizes.exceedsInt(value)) {
                    problem(lineNo, path, "'" + value + "' is too large for this field (max 2g-1)");
                }
            } else if (type == boolean.class || type == Boolean.class) {
                if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
                    problem(lineNo, path, "expected true or false, found '" + value + "'");
                }
            } else if (type == int.class || type == Integer.class) {
                Integer.decode(value);
            } else if (type == long.class || type == Long.class) {
                Long.decode(value);
            } else if (type.isEnum()) {
                enumValue(type, value);
            }
        } catch (InvocationTargetException e) {
            problem(lineNo, path, "invalid value '" + value + "'" + hint(converter, e.getCause()));
        } catch (NumberFormatException e) {
            problem(lineNo, path, "expected an integer, found '" + value + "'");
        } catch (IllegalArgumentException e) {
            problem(lineNo, path, e.getMessage());
        } catch (ReflectiveOperationException e) {
            problem(lineNo, path, "cannot check value: " + e);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void enumValue(Class<?> type, String value) {
        try {
            Enum.valueOf((Class<Enum>) type, value);
        } catch (IllegalArgumentException e) {
            List<String> names = new ArrayList<>();
            for (Object c : type.getEnumConstants()) names.add(((Enum<?>) c).name());
            throw new IllegalArgumentException("expected one of " + names + ", found '" + value + "'");
        }
    }

    private static String hint(Converter converter, Throwable cause) {
        String method = converter == null ? "" : converter.method();
        if (method.endsWith("ize")) return " (expected a size: a number with an optional k, m or g suffix, e.g. 64k)";
        if (method.endsWith("ime")) return " (expected a duration: a number with ms, s, m, h or d, e.g. 10s)";
        return cause == null || cause.getMessage() == null ? "" : " (" + cause.getMessage() + ")";
    }

    private static boolean isIntSize(Method m) {
        return m.getReturnType() == int.class && m.getName().equals("size");
    }

    private static Method findConverter(Class<?> cls, String name) throws NoSuchMethodException {
        for (Class<?> c = cls; c != null; c = c.getSuperclass()) {
            try {
                Method m = c.getDeclaredMethod(name, String.class);
                m.setAccessible(true);
                return m;
            } catch (NoSuchMethodException e) {
                // look in the superclass
            }
        }
        throw new NoSuchMethodException(cls.getName() + "." + name + "(String)");
    }

    private static boolean isBean(Class<?> type) {
        return type.isAnnotationPresent(Config.class);
    }

    static Map<String, Field> fieldsOf(Class<?> type) {
        Map<String, Field> fields = new TreeMap<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                // the same selection as ConfigParser: no static, transient or synthetic fields
                if ((f.getModifiers() & (Modifier.STATIC | Modifier.TRANSIENT | 0x1000)) == 0) {
                    fields.putIfAbsent(f.getName(), f);
                }
            }
        }
        return fields;
    }

    static String suggestion(String key, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(key.toLowerCase(Locale.ROOT), k.toLowerCase(Locale.ROOT));
            if (d < bestDistance) {
                bestDistance = d;
                best = k;
            }
        }
        if (best != null && bestDistance <= Math.max(2, key.length() / 4)) {
            return " (did you mean '" + best + "'?)";
        }
        return " (known fields: " + String.join(", ", known) + ")";
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) prev[j] = j;
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private static int indentOf(String line) {
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c != ' ' && c != '\t') {
                return c == '#' ? -1 : i;
            }
        }
        return -1;
    }

    private static String pathOf(Frame frame) {
        if (frame instanceof BeanFrame b) return b.path;
        if (frame instanceof ListFrame l) return l.path();
        return "";
    }

    private void problem(int lineNo, String path, String message) {
        problems.add(source + ":" + lineNo + ": " + (path.isEmpty() ? "" : path + ": ") + message);
    }

    /** Sizes that one-nio's int converter would silently wrap around. */
    static final class DefaultSizes {
        private DefaultSizes() {}

        static boolean exceedsInt(String value) {
            return one.nio.config.DefaultConverters.longSize(value) > Integer.MAX_VALUE;
        }
    }
}
