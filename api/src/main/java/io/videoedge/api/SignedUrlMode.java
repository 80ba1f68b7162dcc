package io.videoedge.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a signed-URL rule asks of the paths under its prefix. */
public enum SignedUrlMode {
    /** 403 without a valid token. */
    @JsonProperty("required")
    REQUIRED,
    /** A token the request carries is checked (403 when not valid); a request without one is served. */
    @JsonProperty("optional")
    OPTIONAL,
    /** No check: a narrower prefix can open a part of a required one. */
    @JsonProperty("off")
    OFF
}
