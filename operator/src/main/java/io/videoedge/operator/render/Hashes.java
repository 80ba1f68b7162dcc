package io.videoedge.operator.render;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 in hex, for checksums and revisions, and the canonical JSON they are taken over. */
public final class Hashes {
    /** Map entries by key (Map.of iterates in a per-JVM order), nulls left out: equal values, equal text. */
    private static final ObjectMapper CANONICAL = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .serializationInclusion(JsonInclude.Include.NON_NULL)
            .build();

    private Hashes() {}

    public static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The first {@code length} hex digits of the SHA-256 of the value's canonical JSON. */
    public static String revision(Object value, int length) {
        return sha256(canonicalJson(value)).substring(0, length);
    }

    static String canonicalJson(Object value) {
        try {
            return CANONICAL.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "cannot serialise " + value.getClass().getSimpleName(), e);
        }
    }

    static <T> T fromCanonicalJson(String json, Class<T> type) {
        try {
            return CANONICAL.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "not a " + type.getSimpleName() + " document: " + e.getOriginalMessage(), e);
        }
    }
}
