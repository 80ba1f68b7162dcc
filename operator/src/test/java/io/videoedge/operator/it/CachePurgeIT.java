package io.videoedge.operator.it;

import static io.videoedge.operator.it.ItEnv.admin;
import static io.videoedge.operator.it.ItEnv.create;
import static io.videoedge.operator.it.ItEnv.events;
import static io.videoedge.operator.it.ItEnv.eventually;
import static io.videoedge.operator.it.ItEnv.kubelets;
import static io.videoedge.operator.it.ItEnv.namespace;
import static io.videoedge.operator.it.ItEnv.node;
import static io.videoedge.operator.it.ItEnv.operator;
import static io.videoedge.operator.it.ItEnv.podOn;
import static io.videoedge.operator.it.ItEnv.ready;
import static io.videoedge.operator.it.ItEnv.tlsSecret;
import static io.videoedge.operator.it.ItEnv.tunings;
import static io.videoedge.operator.it.ItEnv.videoEdge;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.videoedge.api.CachePurge;
import io.videoedge.api.CachePurgeSpec;
import io.videoedge.api.CachePurgeStatus;
import io.videoedge.server.testing.FreePorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CachePurge controller on a real kube-apiserver, with each node's edge server a small real HTTP
 * listener on loopback standing in for POST /admin/purge: it answers only with the VideoEdge's admin
 * token (from the Secret the operator made), remembers the purge ids it applied and when (answering a
 * repeated id from memory, as the edge server does) and records the calls. A node down when the purge
 * is created acknowledges once it is back; a node still down at the deadline fails the purge, and gets
 * it when it is back after the deadline, also across an operator restart.
 */
class CachePurgeIT {
    @BeforeAll
    static void start() {
        ItEnv.start();
    }

    @AfterAll
    static void stop() {
        ItEnv.stop();
    }

    /** One node's edge server, as far as purges go: checks the bearer token, answers what it "removed". */
    static final class StandIn implements AutoCloseable {
        final String ns;
        final String secret;
        final int port;
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<Instant> callTimes = new CopyOnWriteArrayList<>();
        final Map<String, Instant> applied = new ConcurrentHashMap<>();
        final AtomicInteger repeated = new AtomicInteger();
        HttpServer server;

        /** @param port free now (see {@link FreePorts}); bound by {@link #up}, given up by {@link #down} */
        StandIn(String node, String ns, String secret, int port) {
            this.ns = ns;
            this.secret = secret;
            this.port = port;
            OperatorHarness.ADMIN_ENDPOINTS.put(node, URI.create("http://127.0.0.1:" + port));
        }

        void up() throws IOException {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 16);
            server.createContext("/admin/purge", this::handle);
            server.start();
        }

        void down() {
            if (server != null) server.stop(0);
            server = null;
        }

        private void handle(HttpExchange x) throws IOException {
            Secret s = admin.secrets().inNamespace(ns).withName(secret).get();
            String token = new String(Base64.getDecoder().decode(s.getData().get("token")), StandardCharsets.UTF_8);
            String auth = x.getRequestHeaders().getFirst("Authorization");
            boolean ok = x.getRequestMethod().equals("POST") && ("Bearer " + token).equals(auth);
            String answer = "{\"error\":\"wrong admin token\"}\n";
            if (ok) {
                String query = x.getRequestURI().getRawQuery();
                callTimes.add(Instant.now());
                calls.add(query);
                String id = query.substring(query.indexOf("&id=") + 4);
                Instant first = applied.putIfAbsent(id, Instant.now());
                if (first != null) repeated.incrementAndGet();
                answer = "{\"purge\":\"/x\",\"memory\":1,\"disk\":2,\"fills\":0,\"appliedAt\":\"" + applied.get(id)
                        + "\",\"repeated\":" + (first != null) + "}\n";
            }
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            x.sendResponseHeaders(ok ? 200 : 403, body.length);
            x.getResponseBody().write(body);
            x.close();
        }

        @Override
        public void close() {
            down();
        }
    }

    private static CachePurge purge(String ns, String name, String path, String prefix, int deadlineSeconds) {
        CachePurge cp = new CachePurge();
        cp.getMetadata().setName(name);
        cp.getMetadata().setNamespace(ns);
        cp.setSpec(new CachePurgeSpec("edge", path, prefix, deadlineSeconds));
        return admin.resource(cp).create();
    }

    private static CachePurgeStatus status(String ns, String name) {
        CachePurge cp =
                admin.resources(CachePurge.class).inNamespace(ns).withName(name).get();
        return cp == null ? null : cp.getStatus();
    }

    private static Condition condition(CachePurgeStatus s, String type) {
        return s == null || s.conditions() == null
                ? null
                : s.conditions().stream()
                        .filter(c -> c.getType().equals(type))
                        .findFirst()
                        .orElse(null);
    }

    private static boolean is(CachePurgeStatus s, String type, String status) {
        Condition c = condition(s, type);
        return c != null && c.getStatus().equals(status);
    }

    @Test
    void reachesEveryNodeAcknowledgesADownNodeWhenItComesBackFailsAtTheDeadlineAndCompletesLate() throws Exception {
        String ns = namespace("purge");
        node("purge-1", "purge");
        node("purge-2", "purge");
        tlsSecret(ns, "edge-tls");
        create(videoEdge(ns, "edge", "purge", s -> s));
        eventually().until(() -> tunings("edge", ns).size() == 2);
        Secret token = eventually()
                .until(
                        () -> admin.secrets()
                                .inNamespace(ns)
                                .withName("edge-admin-token")
                                .get(),
                        s -> s != null);
        assertThat(token.getMetadata().getLabels()).containsEntry("app.kubernetes.io/component", "admin-token");
        assertThat(token.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(o -> assertThat(o.getName()).isEqualTo("edge"));

        int[] ports = FreePorts.distinct(2); // two probes in a row may be handed the same port
        try (StandIn one = new StandIn("purge-1", ns, "edge-admin-token", ports[0]);
                StandIn two = new StandIn("purge-2", ns, "edge-admin-token", ports[1])) {
            one.up(); // purge-2's server is down when the purge is created
            CachePurge cp = purge(ns, "movie", "/vod/movie/init.mp4", null, 120);
            CachePurgeStatus waiting = eventually()
                    .until(
                            () -> status(ns, "movie"),
                            s -> s != null && Integer.valueOf(1).equals(s.acknowledgedNodes()));
            assertThat(waiting.targeted()).isEqualTo(2);
            assertThat(waiting.pendingNodes()).isEqualTo(1);
            assertThat(waiting.acknowledged()).isEqualTo("1/2");
            assertThat(waiting.pending()).singleElement().satisfies(p -> {
                assertThat(p.node()).isEqualTo("purge-2");
                assertThat(p.reason()).isEqualTo(CachePurge.UNREACHABLE);
            });
            assertThat(condition(waiting, CachePurge.COMPLETE).getReason()).isEqualTo(CachePurge.PENDING);
            assertThat(is(waiting, CachePurge.FAILED, "False")).isTrue();

            two.up(); // it comes back before the deadline: it gets the purge
            CachePurgeStatus done =
                    eventually().until(() -> status(ns, "movie"), s -> is(s, CachePurge.COMPLETE, "True"));
            assertThat(done.acknowledged()).isEqualTo("2/2");
            assertThat(done.pending()).isNull();
            assertThat(done.removed()).isEqualTo(new CachePurgeStatus.Removed(2, 4, 0));
            assertThat(condition(done, CachePurge.COMPLETE).getReason()).isEqualTo(CachePurge.ALL_ACKNOWLEDGED);
            String expected =
                    "path=%2Fvod%2Fmovie%2Finit.mp4&id=" + cp.getMetadata().getUid();
            assertThat(one.calls).as("an acknowledged node is not called again").containsExactly(expected);
            assertThat(two.calls).containsExactly(expected);
            eventually().until(() -> events(ns).contains("Normal Purged"));
            Thread.sleep(4_000); // a final purge is left alone
            assertThat(one.calls).hasSize(1);
            assertThat(two.calls).hasSize(1);

            // a node down through the deadline (its server, and its pod not ready): Failed, and it says which
            two.down();
            kubelets.serverDown("purge-2", true);
            eventually().until(() -> !ready(podOn(ns, "purge-2")));
            CachePurge live = purge(ns, "live", null, "/live/", 10);
            String liveCall = "prefix=%2Flive%2F&id=" + live.getMetadata().getUid();
            CachePurgeStatus failed = eventually()
                    .atMost(Duration.ofSeconds(40))
                    .until(() -> status(ns, "live"), s -> is(s, CachePurge.FAILED, "True"));
            assertThat(condition(failed, CachePurge.FAILED).getReason()).isEqualTo(CachePurge.DEADLINE_EXCEEDED);
            assertThat(condition(failed, CachePurge.FAILED).getMessage()).contains("1 of 2 nodes", "purge-2");
            assertThat(is(failed, CachePurge.COMPLETE, "False")).isTrue();
            assertThat(condition(failed, CachePurge.COMPLETE).getMessage()).contains("purge-2", "every 3600 s");
            assertThat(failed.acknowledged()).isEqualTo("1/2");
            assertThat(failed.missedDeadline()).isEqualTo(1);
            assertThat(failed.acknowledgedLate()).isZero();
            assertThat(failed.pending())
                    .extracting(CachePurgeStatus.PendingNode::node)
                    .containsExactly("purge-2");
            assertThat(one.calls).last().isEqualTo(liveCall);
            eventually().until(() -> events(ns).contains("Warning PurgeFailed"));

            // the operator restarts: the acknowledgements were in its memory, so purge-1 is called again with the
            // same id and answers from its memory, with when it applied it (before the deadline: not late)
            operator.stop();
            operator.start();
            eventually().until(() -> one.repeated.get() == 1);
            assertThat(one.calls.stream().filter(liveCall::equals)).hasSize(2);

            // purge-2 is back after the deadline: once its pod says the server is up, the purge reaches it (the
            // harness's slow retry is an hour: nothing else calls it within this test)
            two.up();
            Instant back = Instant.now();
            kubelets.serverDown("purge-2", false);
            CachePurgeStatus late = eventually()
                    .atMost(Duration.ofSeconds(60))
                    .until(() -> status(ns, "live"), s -> is(s, CachePurge.COMPLETE, "True"));
            System.out.printf(
                    "CachePurgeIT: the late purge reached purge-2 %d ms after its pod was reported ready%n",
                    Duration.between(back, two.callTimes.getLast()).toMillis());
            assertThat(two.calls).containsExactly(expected, liveCall);
            assertThat(condition(late, CachePurge.COMPLETE).getReason())
                    .isEqualTo(CachePurge.ACKNOWLEDGED_AFTER_DEADLINE);
            assertThat(condition(late, CachePurge.COMPLETE).getMessage()).contains("1 of them after the deadline");
            assertThat(condition(late, CachePurge.FAILED))
                    .as("the record that the deadline was missed stays")
                    .isEqualTo(condition(failed, CachePurge.FAILED));
            assertThat(late.acknowledged()).isEqualTo("2/2");
            assertThat(late.pendingNodes()).isZero();
            assertThat(late.pending()).isNull();
            assertThat(late.missedDeadline()).isEqualTo(1);
            assertThat(late.acknowledgedLate())
                    .as("purge-1's repeated answer after the restart says it applied it on time")
                    .isEqualTo(1);
            eventually().until(() -> events(ns).contains("Normal PurgedAfterDeadline"));
            Thread.sleep(4_000); // complete: final, nobody is called again
            assertThat(one.calls.stream().filter(liveCall::equals)).hasSize(2);
            assertThat(two.calls).hasSize(2);
            assertThat(one.repeated.get()).isEqualTo(1);
        }
    }

    @Test
    void aPurgeOfAVideoEdgeThatDoesNotExistFailsAndBadSpecsAreRefusedAtAdmission() {
        String ns = namespace("purge-bad");
        CachePurge cp = new CachePurge();
        cp.getMetadata().setName("nothing");
        cp.getMetadata().setNamespace(ns);
        cp.setSpec(new CachePurgeSpec("missing", "/a", null, 60));
        admin.resource(cp).create();
        CachePurgeStatus s = eventually().until(() -> status(ns, "nothing"), st -> is(st, CachePurge.FAILED, "True"));
        assertThat(condition(s, CachePurge.FAILED).getReason()).isEqualTo(CachePurge.VIDEO_EDGE_NOT_FOUND);

        CachePurge both = new CachePurge();
        both.getMetadata().setName("both");
        both.getMetadata().setNamespace(ns);
        both.setSpec(new CachePurgeSpec("edge", "/a", "/b", 60));
        assertThatThrownBy(() -> admin.resource(both).create())
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("exactly one of path");
        CachePurge relative = new CachePurge();
        relative.getMetadata().setName("relative");
        relative.getMetadata().setNamespace(ns);
        relative.setSpec(new CachePurgeSpec("edge", "a.mp4", null, 60));
        assertThatThrownBy(() -> admin.resource(relative).create()).isInstanceOf(KubernetesClientException.class);
        assertThatThrownBy(() -> admin.resources(CachePurge.class)
                        .inNamespace(ns)
                        .withName("nothing")
                        .edit(c -> {
                            c.setSpec(new CachePurgeSpec("missing", "/b", null, 60));
                            return c;
                        }))
                .isInstanceOf(KubernetesClientException.class)
                .hasMessageContaining("cannot be changed");
    }
}
