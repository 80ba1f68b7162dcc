package io.videoedge.server.origin;

import java.net.ProtocolException;
import java.nio.ByteBuffer;

/**
 * Decodes a chunked response body (RFC 9112 7.1) in place: fed any slice of the read buffer, it
 * reports the data bytes inside it as (position, length) segments, keeping its state across slices.
 * Chunk extensions and trailers are skipped.
 */
public final class ChunkedDecoder {
    public interface Segments {
        void data(int position, int length) throws java.io.IOException;
    }

    private enum State {
        SIZE,
        EXTENSION,
        SIZE_LF,
        DATA,
        DATA_CR,
        DATA_LF,
        TRAILER_START,
        TRAILER_LINE,
        TRAILER_LF,
        FINAL_LF,
        DONE
    }

    private State state = State.SIZE;
    private long size;
    private int sizeDigits;
    private long remaining;

    public boolean done() {
        return state == State.DONE;
    }

    /** Feeds bytes [from, to) of {@code b}; returns how many were consumed (less than all only once done). */
    public int feed(ByteBuffer b, int from, int to, Segments out) throws java.io.IOException {
        int i = from;
        while (i < to && state != State.DONE) {
            if (state == State.DATA) {
                int n = (int) Math.min(remaining, to - i);
                out.data(i, n);
                i += n;
                remaining -= n;
                if (remaining == 0) state = State.DATA_CR;
                continue;
            }
            byte c = b.get(i++);
            switch (state) {
                case SIZE -> {
                    int digit = Character.digit(c, 16);
                    if (digit >= 0) {
                        if (++sizeDigits > 15) throw new ProtocolException("chunk size too large");
                        size = size * 16 + digit;
                    } else if (c == ';' || c == ' ' || c == '\t') {
                        state = State.EXTENSION;
                    } else if (c == '\r') {
                        state = State.SIZE_LF;
                    } else {
                        throw new ProtocolException("bad chunk size");
                    }
                    if (sizeDigits == 0 && state != State.SIZE) throw new ProtocolException("missing chunk size");
                }
                case EXTENSION -> {
                    if (c == '\r') state = State.SIZE_LF;
                }
                case SIZE_LF -> {
                    if (c != '\n') throw new ProtocolException("bad chunk line");
                    if (size == 0) {
                        state = State.TRAILER_START;
                    } else {
                        remaining = size;
                        state = State.DATA;
                    }
                    size = 0;
                    sizeDigits = 0;
                }
                case DATA_CR -> {
                    if (c != '\r') throw new ProtocolException("chunk data not followed by CRLF");
                    state = State.DATA_LF;
                }
                case DATA_LF -> {
                    if (c != '\n') throw new ProtocolException("chunk data not followed by CRLF");
                    state = State.SIZE;
                }
                case TRAILER_START -> state = c == '\r' ? State.FINAL_LF : State.TRAILER_LINE;
                case TRAILER_LINE -> {
                    if (c == '\r') state = State.TRAILER_LF;
                }
                case TRAILER_LF -> {
                    if (c != '\n') throw new ProtocolException("bad trailer");
                    state = State.TRAILER_START;
                }
                case FINAL_LF -> {
                    if (c != '\n') throw new ProtocolException("bad end of chunked body");
                    state = State.DONE;
                }
                default -> throw new IllegalStateException(state.name());
            }
        }
        return i - from;
    }
}
