package io.videoedge.server.http;

/** Status lines one-nio's Response does not define. */
public final class Statuses {
    public static final String HEADER_FIELDS_TOO_LARGE = "431 Request Header Fields Too Large";
    public static final String TOO_MANY_REQUESTS = "429 Too Many Requests";

    private Statuses() {}
}
