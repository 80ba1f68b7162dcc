package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "!has(self.http) || !has(self.https) || !has(self.http.port) || !has(self.https.port) "
                + "|| self.http.port != self.https.port",
        fieldPath = ".https.port",
        message = "http.port and https.port must differ: both acceptors bind on the node's host network")
@ValidationRule(
        value = "!has(self.memory) || quantity(self.memory).compareTo(quantity('320Mi')) >= 0",
        fieldPath = ".memory",
        message =
                "memory must be at least 320Mi: the edge server's heap (64Mi at least), 192Mi for the JVM's native memory "
                        + "and 32Mi of I/O buffers")
@ValidationRule(
        value = "!has(self.memory) || quantity(self.memory).isLessThan(quantity('1Ei'))",
        fieldPath = ".memory",
        message = "memory must be less than 1Ei")
@ValidationRule(
        value =
                "!has(self.cache) || !has(self.cache.memory) || quantity(self.cache.memory).isLessThan(quantity('1Ei'))",
        fieldPath = ".cache.memory",
        message = "cache.memory must be less than 1Ei")
@ValidationRule(
        value = "!has(self.cache) || !has(self.cache.disk) || !has(self.cache.disk.size) "
                + "|| quantity(self.cache.disk.size).isLessThan(quantity('1Ei'))",
        fieldPath = ".cache.disk.size",
        message = "cache.disk.size must be less than 1Ei")
@ValidationRule(
        value = "!has(self.cache) || !has(self.cache.memory) || !has(self.memory) "
                + "|| quantity(self.cache.memory).isLessThan(quantity(self.memory))",
        fieldPath = ".cache.memory",
        message =
                "cache.memory must be less than server.memory: the memory cache lives inside the pod's memory, off the heap")
@ValidationRule(
        value = Patterns.CACHE_FITS_BESIDE_JVM,
        fieldPath = ".cache.memory",
        message =
                "cache.memory must fit in server.memory beside the JVM: a heap of a quarter of server.memory (at most 4Gi), "
                        + "192Mi of native memory and 32Mi of I/O buffers; server.memory 2Gi holds a cache of up to 1312Mi")
@ValidationRule(
        value = "!has(self.contentPath) || !self.contentPath.matches('(^|/)[.][.](/|$)')",
        fieldPath = ".contentPath",
        message = "contentPath must not contain '..' segments")
@ValidationRule(
        value = "!has(self.cache) || !has(self.cache.disk) || !has(self.cache.disk.path) "
                + "|| !self.cache.disk.path.matches('(^|/)[.][.](/|$)')",
        fieldPath = ".cache.disk.path",
        message = "cache.disk.path must not contain '..' segments")
public record ServerSpec(
        @JsonPropertyDescription(
                "Dedicated cores for the edge server. Requests equal limits (Guaranteed QoS) with this integer "
                        + "CPU count, so the kubelet's static CPU manager gives the pod these cores to itself.")
        @Default("2")
        @Min(1)
        @Max(1024)
        Integer cpus,

        @JsonPropertyDescription(
                "Memory of the edge server pod (a Kubernetes quantity, e.g. 8Gi); requests equal limits.")
        @Default("2Gi")
        @Pattern(Patterns.K8S_QUANTITY)
        String memory,

        @JsonPropertyDescription("one-nio selector (event loop) threads; 0 means one per dedicated core.")
        @Default("0")
        @Min(0)
        @Max(1024)
        Integer selectors,

        @JsonPropertyDescription("Pin selector threads to the pod's dedicated CPUs, one each (one-nio 'affinity').")
        @Default("true")
        Boolean affinity,

        @JsonPropertyDescription("Constrain each acceptor to its own selectors (one-nio 'pinAcceptors').")
        @Default("true")
        Boolean pinAcceptors,

        @JsonPropertyDescription("One acceptor thread for all listening sockets (one-nio 'multiAcceptor').")
        @Default("true")
        Boolean multiAcceptor,

        @JsonPropertyDescription("Plain HTTP acceptor.") @Default("{\"port\": 80}")
        Port http,

        @JsonPropertyDescription("HTTPS acceptor; serves only when tls.mode is not 'none'.") @Default("{\"port\": 443}")
        Port https,

        @JsonPropertyDescription(
                "Socket options of both acceptors (the seed's final config: recvBuf 64k, sendBuf 4m, notsentLowat 512k).")
        @Default("{}")
        Socket socket,

        @JsonPropertyDescription("Two cache levels in front of the origin: an off-heap memory LRU and a disk FIFO.")
        @Default("{}")
        Cache cache,

        @JsonPropertyDescription("Origin the edge fetches misses from. Without it the server serves only contentPath.")
        Origin origin,

        @JsonPropertyDescription("Directory on the node with video objects served by path (a hostPath, read-only).")
        @Default("/var/lib/videoedge/content")
        @Pattern(Patterns.ABSOLUTE_PATH)
        String contentPath,

        @JsonPropertyDescription("Edge server image. Default: the image the operator was installed with.")
        @Size(max = 512)
        String image,

        @JsonPropertyDescription(
                "Deprecated: use rollout.maxUnavailable, which wins when both are set. Nodes that may be out "
                        + "of service during a rollout: a count or a percentage.")
        @Default("1")
        @Pattern(Patterns.MAX_UNAVAILABLE)
        String maxUnavailable) {

    public ServerSpec withSocket(Socket socket) {
        return new ServerSpec(
                cpus,
                memory,
                selectors,
                affinity,
                pinAcceptors,
                multiAcceptor,
                http,
                https,
                socket,
                cache,
                origin,
                contentPath,
                image,
                maxUnavailable);
    }

    public ServerSpec withCpus(Integer cpus) {
        return new ServerSpec(
                cpus,
                memory,
                selectors,
                affinity,
                pinAcceptors,
                multiAcceptor,
                http,
                https,
                socket,
                cache,
                origin,
                contentPath,
                image,
                maxUnavailable);
    }

    public ServerSpec withSelectors(Integer selectors) {
        return new ServerSpec(
                cpus,
                memory,
                selectors,
                affinity,
                pinAcceptors,
                multiAcceptor,
                http,
                https,
                socket,
                cache,
                origin,
                contentPath,
                image,
                maxUnavailable);
    }

    public ServerSpec withOrigin(Origin origin) {
        return new ServerSpec(
                cpus,
                memory,
                selectors,
                affinity,
                pinAcceptors,
                multiAcceptor,
                http,
                https,
                socket,
                cache,
                origin,
                contentPath,
                image,
                maxUnavailable);
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = "(has(self.enabled) && !self.enabled) || has(self.port)",
            fieldPath = ".port",
            message = "an enabled acceptor needs a port")
    @ValidationRule(
            value = "(has(self.enabled) && !self.enabled) || !has(self.port) || self.port != "
                    + Patterns.EDGE_ADMIN_PORT,
            fieldPath = ".port",
            message = "port " + Patterns.EDGE_ADMIN_PORT + " is the edge server's admin port (metrics, probes): "
                    + "choose another")
    public record Port(
            @JsonPropertyDescription("TCP port on the node's host network.") @Min(1) @Max(65535)
            Integer port,

            @JsonPropertyDescription("Whether this acceptor listens.") @Default("true")
            Boolean enabled) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = Patterns.RECV_BUF_FITS,
            fieldPath = ".recvBuf",
            message = "recvBuf must be at most 2147483647 bytes (2047m): the edge server holds socket sizes as an int")
    @ValidationRule(
            value = Patterns.SEND_BUF_FITS,
            fieldPath = ".sendBuf",
            message = "sendBuf must be at most 2147483647 bytes (2047m): the edge server holds socket sizes as an int")
    @ValidationRule(
            value = Patterns.NOTSENT_LOWAT_FITS,
            fieldPath = ".notsentLowat",
            message =
                    "notsentLowat must be at most 2147483647 bytes (2047m): the edge server holds socket sizes as an int")
    public record Socket(
            @JsonPropertyDescription(
                    "SO_RCVBUF of accepted sockets, one-nio size (64k, 4m). Live: new connections get it without a restart.")
            @Default("64k")
            @Pattern(Patterns.ONE_NIO_SIZE)
            String recvBuf,

            @JsonPropertyDescription(
                    "SO_SNDBUF of accepted sockets, one-nio size. 4m lets one connection reach ~32 Mbps at 1 s RTT. Live: new "
                            + "connections get it without a restart.")
            @Default("4m")
            @Pattern(Patterns.ONE_NIO_SIZE)
            String sendBuf,

            @JsonPropertyDescription(
                    "TCP_NOTSENT_LOWAT per socket, one-nio size: caps unsent data the kernel holds per connection. Live: new "
                            + "connections get it without a restart.")
            @Default("512k")
            @Pattern(Patterns.ONE_NIO_SIZE)
            String notsentLowat,

            @JsonPropertyDescription("SO_REUSEPORT: one listening socket per acceptor thread, balanced by the kernel.")
            @Default("true")
            Boolean reusePort,

            @JsonPropertyDescription("Acceptor threads per port (one-nio 'threads').") @Default("1") @Min(1) @Max(1024)
            Integer acceptorThreads,

            @JsonPropertyDescription("Listen backlog per socket.") @Default("1024") @Min(1) @Max(65535)
            Integer backlog) {}

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Cache(
            @JsonPropertyDescription(
                    "Off-heap memory LRU for hot objects and manifests (a Kubernetes quantity). 0 disables it.")
            @Default("256Mi")
            @Pattern(Patterns.K8S_QUANTITY)
            String memory,

            @JsonPropertyDescription("Disk FIFO on the node (SSD/NVMe), served with sendfile.") @Default("{}")
            Disk disk) {

        @JsonInclude(JsonInclude.Include.NON_NULL)
        public record Disk(
                @JsonPropertyDescription("Directory on the node for the disk cache (a hostPath).")
                @Default("/var/cache/videoedge")
                @Pattern(Patterns.ABSOLUTE_PATH)
                String path,

                @JsonPropertyDescription("Byte budget of the disk cache (a Kubernetes quantity). 0 disables it.")
                @Default("10Gi")
                @Pattern(Patterns.K8S_QUANTITY)
                String size) {}
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(
            value = "!has(self.url) || self.url.matches(\"" + Patterns.ORIGIN_URL + "\")",
            fieldPath = ".url",
            message =
                    "origin.url must be http:// or https:// with a host name or IPv4 address, an optional port 1-65535 "
                            + "and an optional path, no user, query or fragment; e.g. http://origin.example:8080/video")
    @ValidationRule(
            value = "!has(self.caSecretName) || (has(self.url) && self.url.startsWith('https://'))",
            fieldPath = ".caSecretName",
            message = "origin.caSecretName is only for an https:// origin.url (a CA bundle verifies "
                    + "the origin's TLS certificate): use https:// or remove caSecretName")
    @ValidationRule(
            value = Patterns.CONNECT_TIMEOUT_FITS,
            fieldPath = ".connectTimeout",
            message = "connectTimeout must be at most 2147483647ms (about 24 days)")
    @ValidationRule(
            value = Patterns.READ_TIMEOUT_FITS,
            fieldPath = ".readTimeout",
            message = "readTimeout must be at most 2147483647ms (about 24 days)")
    public record Origin(
            @JsonPropertyDescription(
                    "Origin base URL, http:// or https://; an object /a/b.mp4 is fetched from URL/a/b.mp4. With "
                            + "https:// the origin's certificate chain is verified (against caSecretName, else the image's system CAs) and its "
                            + "subjectAltName must name the URL's host.")
            @Size(min = 1, max = 2048)
            String url,

            @JsonPropertyDescription(
                    "https:// only: a Secret in the VideoEdge's namespace whose key ca.crt holds the PEM bundle of the "
                            + "CAs the origin's certificate must chain to (the key cert-manager and kubernetes.io/tls Secrets use); only that "
                            + "bundle is trusted then. Unset: the edge-server image's system CA store (/etc/ssl/certs/ca-certificates.crt). "
                            + "Either way the URL's host must be in the certificate's subjectAltName. Only ca.crt is mounted (read-only). The "
                            + "server loads the bundle when it starts: the operator reads the Secret again every recheck interval (30s by "
                            + "default) and a changed ca.crt restarts the edge servers through a rollout.")
            @Size(min = 1, max = 253)
            @Pattern(Patterns.DNS_SUBDOMAIN)
            String caSecretName,

            @JsonPropertyDescription("Connect timeout, one-nio time (500ms, 1s).")
            @Default("1s")
            @Pattern(Patterns.ONE_NIO_TIME)
            String connectTimeout,

            @JsonPropertyDescription("Read timeout for one origin response, one-nio time.")
            @Default("10s")
            @Pattern(Patterns.ONE_NIO_TIME)
            String readTimeout,

            @JsonPropertyDescription("Concurrent connections to the origin.") @Default("64") @Min(1) @Max(65535)
            Integer maxConnections) {}
}
