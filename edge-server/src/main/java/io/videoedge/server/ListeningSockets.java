package io.videoedge.server;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import one.nio.net.Session;
import one.nio.net.Socket;
import one.nio.server.acceptor.Acceptor;

/**
 * The listening sockets of a one-nio 2.3.0 acceptor. one-nio keeps them private: {@code DefaultAcceptor}
 * has {@code acceptorGroups} of {@code DefaultAcceptorGroup}, each with {@code acceptors} (threads that
 * hold a {@code serverSocket}); {@code MultiAcceptor} has {@code acceptorGroups} of
 * {@code MultiAcceptorGroup}, each with {@code sessions} (sessions whose socket listens). Read by
 * reflection, for reporting only (admin /sockets); if a one-nio upgrade renames them, this fails
 * loudly ({@code LiveReconfigureIT} reads the listeners back).
 */
final class ListeningSockets {
    private ListeningSockets() {}

    static List<Socket> of(Acceptor acceptor) {
        List<Socket> sockets = new ArrayList<>();
        Object groups = field(acceptor, "acceptorGroups");
        for (int g = 0; g < Array.getLength(groups); g++) {
            Object group = Array.get(groups, g);
            if (group == null) continue;
            Object members = hasField(group, "sessions") ? field(group, "sessions") : field(group, "acceptors");
            for (int i = 0; i < Array.getLength(members); i++) {
                Object m = Array.get(members, i);
                if (m instanceof Session session) {
                    sockets.add(session.socket());
                } else if (m != null) {
                    sockets.add((Socket) field(m, "serverSocket"));
                }
            }
        }
        return sockets;
    }

    private static boolean hasField(Object o, String name) {
        return find(o.getClass(), name) != null;
    }

    private static Object field(Object o, String name) {
        Field f = find(o.getClass(), name);
        if (f == null || !f.trySetAccessible()) {
            throw new IllegalStateException("one-nio internals changed: no readable field " + name + " in "
                    + o.getClass().getName());
        }
        try {
            return f.get(o);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Field find(Class<?> c, String name) {
        for (; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredField(name);
            } catch (NoSuchFieldException e) {
                // superclass
            }
        }
        return null;
    }
}
