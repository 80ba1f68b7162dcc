package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
        value = "has(self.path) != has(self.prefix)",
        message = "give exactly one of path (one object) and prefix (every object under it)")
@ValidationRule(value = "self == oldSelf", message = "a CachePurge cannot be changed: create another one")
public record CachePurgeSpec(
        @JsonPropertyDescription("The VideoEdge (in this namespace) whose edge servers purge.")
        @Required
        @Size(min = 1, max = 253)
        String videoEdge,

        @JsonPropertyDescription(
                "One object: the request path as clients ask for it, e.g. /vod/movie/init.mp4 (percent-encoding and "
                        + "duplicate slashes are normalised as the server does for requests).")
        @Pattern("^/")
        @Size(max = 2048)
        String path,

        @JsonPropertyDescription(
                "Every object whose request path starts with this. Ending in / it is a directory (/live/ purges "
                        + "/live/a.ts, not /lively.ts); otherwise a plain string prefix (/live/s1_ purges /live/s1_001.ts); / purges everything.")
        @Pattern("^/")
        @Size(max = 2048)
        String prefix,

        @JsonPropertyDescription(
                "Seconds from creation within which every node should acknowledge. Until then, nodes that could not be "
                        + "reached (down, restarting) are tried again every few seconds; after it the purge is Failed "
                        + "(DeadlineExceeded, kept as the record) and the nodes still not reached are called when their "
                        + "edge-server pod turns ready again and every 60 s, as long as this CachePurge exists, so a node "
                        + "back from maintenance gets the purge. Default 600.")
        @Default("600")
        @Min(10)
        @Max(604800)
        Integer deadlineSeconds) {}
