package io.videoedge.server.http;

/** What to answer for a GET or HEAD of an existing object: status and the byte range of the body. */
public record Decision(int status, long offset, long length) {
    public static final Decision NOT_MODIFIED = new Decision(304, 0, 0);
    public static final Decision RANGE_NOT_SATISFIABLE = new Decision(416, 0, 0);

    public static Decision full(long length) {
        return new Decision(200, 0, length);
    }

    public static Decision partial(ByteRange r) {
        return new Decision(206, r.start(), r.length());
    }

    public boolean hasBody() {
        return status == 200 || status == 206;
    }
}
