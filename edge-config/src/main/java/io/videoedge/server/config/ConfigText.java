package io.videoedge.server.config;

/**
 * Brings YAML habits into ConfigParser's dialect without moving lines (line numbers stay valid):
 * a comment after a value ("port: 9400  # admin") is dropped, because ConfigParser would keep it as
 * part of the value, and one pair of matching quotes around a value is removed.
 */
final class ConfigText {
    private ConfigText() {}

    static String normalize(String text) {
        String[] lines = text.split("\r?\n", -1);
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < lines.length; i++) {
            if (i > 0) out.append('\n');
            out.append(normalizeLine(lines[i]));
        }
        return out.toString();
    }

    static String normalizeLine(String line) {
        String s = stripComment(line);
        int colon = valueColon(s);
        int valueStart = colon >= 0 ? colon + 1 : dashValueStart(s);
        if (valueStart < 0) {
            return s;
        }
        String value = s.substring(valueStart).trim();
        if (value.length() >= 2
                && (value.charAt(0) == '"' || value.charAt(0) == '\'')
                && value.charAt(value.length() - 1) == value.charAt(0)) {
            return s.substring(0, valueStart) + " " + value.substring(1, value.length() - 1);
        }
        return s;
    }

    /** YAML: '#' starts a comment at the line start or after whitespace, never inside a value word. */
    static String stripComment(String line) {
        for (int i = 0; i < line.length(); i++) {
            if (line.charAt(i) == '#' && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
                return line.substring(0, i).stripTrailing();
            }
        }
        return line.stripTrailing();
    }

    private static int valueColon(String s) {
        int colon = s.indexOf(':');
        // "key: value" or "- key: value"; a colon inside a URL value comes after the key's colon
        return colon >= 0 && (colon + 1 == s.length() || s.charAt(colon + 1) == ' ') ? colon : -1;
    }

    private static int dashValueStart(String s) {
        String t = s.stripLeading();
        return t.startsWith("- ") ? s.length() - t.length() + 1 : -1;
    }
}
