package io.videoedge.server.send;

import one.nio.http.Response;

/** A one-nio Response whose body is a {@link Body} written after the head (see EdgeSession). */
public final class BodyResponse extends Response {
    private final Body body;
    private final byte[] head; // the status line and entity headers, prebuilt; null: built from the headers
    private boolean handedOver;

    public BodyResponse(String status, Body body) {
        this(status, body, null);
    }

    /**
     * @param head the status line and the entity headers as bytes ({@code status} must be the same);
     *             the headers added later (Date, Connection) follow them
     */
    public BodyResponse(String status, Body body, byte[] head) {
        super(status);
        this.body = body;
        this.head = head;
    }

    public Body body() {
        return body;
    }

    /** Called by the session once a queue item owns the body's resources. */
    public void handedOver() {
        handedOver = true;
    }

    /** The head on the wire: the prebuilt part, then the headers added to this response, then a blank line. */
    @Override
    public byte[] toBytes(boolean includeBody) {
        if (head == null) {
            return super.toBytes(includeBody);
        }
        String[] headers = getHeaders();
        int count = getHeaderCount();
        int size = head.length + 2;
        for (int i = 1; i < count; i++) { // headers[0] is the status, already in the head
            size += headers[i].length() + 2;
        }
        byte[] out = java.util.Arrays.copyOf(head, size);
        int at = head.length;
        for (int i = 1; i < count; i++) {
            String h = headers[i];
            for (int c = 0; c < h.length(); c++) {
                out[at++] = (byte) h.charAt(c); // header lines are ASCII
            }
            out[at++] = '\r';
            out[at++] = '\n';
        }
        out[at++] = '\r';
        out[at] = '\n';
        return out;
    }

    /** Releases the body if no queue item took it (HEAD, a closed connection). */
    public void discardIfNotSent() {
        if (!handedOver) {
            body.discard();
        }
    }
}
