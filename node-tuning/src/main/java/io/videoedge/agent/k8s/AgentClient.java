package io.videoedge.agent.k8s;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientImpl;
import java.net.http.HttpClient;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's Fabric8 client, set up for an agent that idles on every node: the JDK HTTP client
 * (no Vert.x/Netty) speaking HTTP/1.1, and the two thread pools Fabric8 lets us give it (its
 * task executor, for informer callbacks and async steps, and the HTTP client's executor) let
 * their threads go after a few idle seconds instead of a minute (about 1 MiB of idle RSS,
 * node-tuning/README.md). Both stay unbounded, as Fabric8's own cached pools are, so no Fabric8
 * task ever waits for another. Everything else (kubeconfig or in-cluster config, token refresh,
 * list+watch, retries) is Fabric8's, unchanged.
 */
public final class AgentClient {
    /** How long an idle pool thread lives (Fabric8's cached pools: 60 s). */
    static final long KEEP_ALIVE_SECONDS = 5;

    private AgentClient() {}

    public static KubernetesClient create(Config config) {
        // HTTP/1.1: one connection for the watch, one kept for the few writes; HTTP/2 and HPACK
        // cost the idle agent about 2 MiB (node-tuning/README.md, footprint)
        config.setHttp2Disable(true);
        ExecutorService http = pool("kube-http");
        return new KubernetesClientBuilder()
                .withConfig(config)
                .withHttpClientFactory(new JdkHttpClientFactory() {
                    @Override
                    protected void additionalConfig(HttpClient.Builder builder) {
                        builder.executor(http);
                    }

                    @Override
                    protected void closeHttpClient(JdkHttpClientImpl client) {
                        super.closeHttpClient(client);
                        http.shutdown();
                    }
                })
                .withTaskExecutorSupplier(new KubernetesClientBuilder.ExecutorSupplier() {
                    @Override
                    public ExecutorService get() {
                        return pool("kube-task");
                    }

                    @Override
                    public void onClose(Executor executor) {
                        ((ExecutorService) executor).shutdownNow();
                    }
                })
                .build();
    }

    /** A cached pool (no queue, no bound) of daemon threads that end after KEEP_ALIVE_SECONDS idle. */
    static ExecutorService pool(String name) {
        AtomicInteger n = new AtomicInteger();
        return new ThreadPoolExecutor(
                0, Integer.MAX_VALUE, KEEP_ALIVE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, name + "-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }
}
