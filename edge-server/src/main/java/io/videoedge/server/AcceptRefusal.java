package io.videoedge.server;

import java.util.concurrent.RejectedExecutionException;
import one.nio.server.RejectedSessionException;

/**
 * How {@code createSession} refuses a connection so that one-nio closes it at accept and keeps
 * accepting: each acceptor kind of one-nio 2.3.0 catches a different exception (MultiAcceptorThread
 * only RejectedExecutionException, and it ends its loop on anything else; AcceptorThread
 * RejectedSessionException quietly, anything else with an error log line). Neither has a stack trace:
 * a flood of refusals costs no stack walks.
 */
final class AcceptRefusal {
    private AcceptRefusal() {}

    static void refuse(boolean multiAcceptor, String why) throws RejectedSessionException {
        if (multiAcceptor) {
            throw new ForMultiAcceptor(why);
        }
        throw new ForAcceptorThread(why);
    }

    private static final class ForMultiAcceptor extends RejectedExecutionException {
        ForMultiAcceptor(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }

    private static final class ForAcceptorThread extends RejectedSessionException {
        ForAcceptorThread(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
