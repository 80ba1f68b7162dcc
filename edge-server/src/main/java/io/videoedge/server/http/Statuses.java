package io.videoedge.server.http;

/** Status lines one-nio's Response does not define. */
public final class Statuses {
    public static final String HEADER_FIELDS_TOO_LARGE = "431 Request Header Fields Too Large";
    public static final String TOO_MANY_REQUESTS = "429 Too Many Requests";
    public static final String UNAVAILABLE_FOR_LEGAL_REASONS = "451 Unavailable For Legal Reasons";

    private Statuses() {}
}
