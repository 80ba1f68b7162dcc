package io.videoedge.operator.purge;

/** What one call to a node's edge server (POST /admin/purge) came back with. */
public sealed interface NodeCall {
    /**
     * The server removed what matched (or had already, under the same purge id); {@code appliedAt} is when,
     * as the server says (a repeated answer: the first time), or null from a server that does not say.
     */
    record Acknowledged(long memory, long disk, long fills, boolean repeated, java.time.Instant appliedAt)
            implements NodeCall {}

    /** The server answered, and not with 200 (401/403: a token mismatch; 400: a path it refuses). */
    record Refused(int status, String message) implements NodeCall {}

    /** No answer: connection refused, timed out, no address. */
    record Unreachable(String reason, String message) implements NodeCall {}
}
