package io.videoedge.server.guard;

import java.util.Arrays;
import java.util.List;

/** Why a defence refused or cut a connection: the {@code reason} label of videoedge_connections_refused_total. */
public enum Refusal {
    /** limits.maxConnections reached: answered 503 and closed. */
    MAX_CONNECTIONS("max_connections"),
    /** limits.maxConnectionsPerAddress reached for the client's address: closed at accept. */
    PER_ADDRESS("per_address"),
    /** The request head was not complete within limits.headerTimeout: closed. */
    HEADER_TIMEOUT("header_timeout"),
    /** The TLS handshake was not done within limits.handshakeTimeout: closed. */
    HANDSHAKE_TIMEOUT("handshake_timeout"),
    /** Took less than limits.minSendBytes in limits.minSendPeriod while a response was pending: closed. */
    SLOW_READER("slow_reader"),
    /** More than limits.maxPipelined requests waiting behind the one being answered: 429, then closed. */
    PIPELINE("pipeline");

    public final String label;

    Refusal(String label) {
        this.label = label;
    }

    public static List<String> labels() {
        return Arrays.stream(values()).map(r -> r.label).toList();
    }
}
