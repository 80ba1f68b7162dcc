package io.videoedge.server.accesslog;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.Arrays;

/**
 * The writer thread's output buffer: JSON written straight as ASCII bytes (anything else escaped as
 * \\uXXXX), numbers without boxing, and the time's seconds formatted once per second. Not thread-safe.
 */
final class LineBuffer {
    private byte[] b;
    private int n;
    private long second = Long.MIN_VALUE;
    private byte[] secondText = new byte[0];

    LineBuffer(int capacity) {
        b = new byte[capacity];
    }

    int size() {
        return n;
    }

    void writeTo(OutputStream out) throws IOException {
        out.write(b, 0, n);
    }

    void clear() {
        n = 0;
    }

    @Override
    public String toString() {
        return new String(b, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
    }

    LineBuffer ascii(String s) {
        ensure(s.length());
        for (int i = 0; i < s.length(); i++) {
            b[n++] = (byte) s.charAt(i);
        }
        return this;
    }

    LineBuffer ch(char c) {
        ensure(1);
        b[n++] = (byte) c;
        return this;
    }

    LineBuffer num(long v) {
        if (v < 0) {
            ch('-');
            if (v == Long.MIN_VALUE) {
                return ascii("9223372036854775808");
            }
            v = -v;
        }
        ensure(20);
        int start = n;
        do {
            b[n++] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        for (int i = start, j = n - 1; i < j; i++, j--) {
            byte t = b[i];
            b[i] = b[j];
            b[j] = t;
        }
        return this;
    }

    LineBuffer bool(boolean v) {
        return ascii(v ? "true" : "false");
    }

    /** 2026-11-24T11:15:00.586Z */
    LineBuffer time(long epochMillis) {
        long s = Math.floorDiv(epochMillis, 1000);
        if (s != second) {
            second = s;
            String t = Instant.ofEpochSecond(s).toString(); // 2026-11-24T11:15:00Z
            secondText = t.substring(0, t.length() - 1).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
        ensure(secondText.length + 5);
        System.arraycopy(secondText, 0, b, n, secondText.length);
        n += secondText.length;
        int ms = (int) Math.floorMod(epochMillis, 1000);
        b[n++] = '.';
        b[n++] = (byte) ('0' + ms / 100);
        b[n++] = (byte) ('0' + ms / 10 % 10);
        b[n++] = (byte) ('0' + ms % 10);
        b[n++] = 'Z';
        return this;
    }

    /** A JSON string; quotes, backslashes, control and non-ASCII characters escaped. */
    LineBuffer string(String s) {
        if (s == null) {
            return ascii("null");
        }
        ensure(s.length() + 2);
        b[n++] = '"';
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
                ensure(1);
                b[n++] = (byte) c;
            } else {
                switch (c) {
                    case '"' -> ascii("\\\"");
                    case '\\' -> ascii("\\\\");
                    case '\n' -> ascii("\\n");
                    case '\r' -> ascii("\\r");
                    case '\t' -> ascii("\\t");
                    default -> {
                        ascii("\\u");
                        for (int shift = 12; shift >= 0; shift -= 4) {
                            ch(Character.forDigit((c >> shift) & 0xf, 16));
                        }
                    }
                }
            }
        }
        return ch('"');
    }

    private void ensure(int more) {
        if (n + more > b.length) {
            b = Arrays.copyOf(b, Math.max(b.length * 2, n + more));
        }
    }
}
