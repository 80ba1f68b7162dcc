package io.videoedge.server.http;

/** Status lines one-nio's Response does not define. */
public final class Statuses {
    public static final String HEADER_FIELDS_TOO_LARGE = "431 Request Header Fields Too Large";

    private Statuses() {}
}
