package io.videoedge.server.tls;

/** What keeps the keys of the ticket directories current: the rotator ({@link TicketKeyRotator}) or shared keys ({@link SharedTicketKeys}). */
public interface TicketKeyKeeper extends AutoCloseable {
    /** Stops keeping the keys; the files stay as they are. */
    @Override
    void close();
}
