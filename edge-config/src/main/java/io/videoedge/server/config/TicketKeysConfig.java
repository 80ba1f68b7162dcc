package io.videoedge.server.config;

import one.nio.config.Config;
import one.nio.config.Converter;

/**
 * Rotation of the session ticket keys in every acceptor's {@code ssl.ticketDir}. {@code rotation}:
 * how long a key encrypts new tickets; it then decrypts for one more period and is deleted, so a
 * ticket's key lives between one and two periods. {@code 0}: the server never writes or deletes keys
 * (managed outside; an empty directory still gets one key so tickets work).
 *
 * <p>{@code source}: keys shared by several servers, a directory of files {@code t<unix seconds>} (48
 * bytes each; the number: when the key starts to encrypt), e.g. a Secret volume. Every {@code poll} the
 * keys in effect are placed in each ticketDir and the others removed; {@code rotation} must be 0 then
 * (whoever writes the source rotates).
 */
@Config
public class TicketKeysConfig {
    public static final long DEFAULT_ROTATION = 3_600_000;

    @Converter(method = "longTime")
    public long rotation = DEFAULT_ROTATION;

    public String source;

    @Converter(method = "time")
    public int poll = 10_000;
}
