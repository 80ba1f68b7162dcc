package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * Rotation of the session ticket keys in every acceptor's {@code ssl.ticketDir}. {@code rotation}:
 * how long a key encrypts new tickets; it then decrypts for one more period and is deleted, so a
 * ticket's key lives between one and two periods. {@code 0}: the server never writes or deletes keys
 * (managed outside, e.g. a Secret; an empty directory still gets one key so tickets work).
 */
@Config
public class TicketKeysConfig {
    public static final long DEFAULT_ROTATION = 3_600_000;

    @Converter(method = "longTime")
    public long rotation = DEFAULT_ROTATION;
}
