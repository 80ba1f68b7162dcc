package io.videoedge.server.signing;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.config.SignedUrlsConfig;
import io.videoedge.server.signing.UrlCheck.Result;
import io.videoedge.server.signing.UrlPolicy.Mode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UrlCheckTest {
    static final byte[] KEY = "0123456789abcdef-test-key".getBytes(StandardCharsets.US_ASCII);
    static final byte[] OLD = "an-older-key-of-at-least-16".getBytes(StandardCharsets.US_ASCII);
    static final byte[] OTHER = "somebody-elses-key-16+".getBytes(StandardCharsets.US_ASCII);
    static final long NOW = 1_700_000_000L;
    static final long LATER = NOW + 600;

    /** Values computed with the openssl one-liner of UrlSignature's comment (the README's). */
    @Test
    void theSignatureIsTheOpensslOneLinersHmac() {
        assertThat(UrlSignature.sign(KEY, 1_800_000_000L, "/vod/a.m4s", null))
                .isEqualTo("X3imw104eNuphqtMDSTi2t5MAv6JzaEC3zqHR5qJnR0");
        assertThat(UrlSignature.sign(KEY, 1_800_000_000L, "/vod/movie/", "203.0.113.7"))
                .isEqualTo("oQDUk_rW-mSKN_dfOK5zgcXNkMsWogOzIMy64P1S7gE");
    }

    private static Result check(Mode mode, String path, String query, String client) {
        return UrlCheck.check(mode, path, query, () -> client, List.of(KEY, OLD), NOW);
    }

    private static String q(byte[] key, long exp, String path, String prefix, String ip) {
        return UrlSignature.query(key, exp, path, prefix, ip);
    }

    @Test
    void aValidTokenForThePathPasses() {
        assertThat(check(Mode.REQUIRED, "/vod/a.m4s", q(KEY, LATER, "/vod/a.m4s", null, null), "10.0.0.1"))
                .isEqualTo(Result.OK);
    }

    @Test
    void theTableOfRefusals() {
        String path = "/vod/movie/seg-1.m4s";
        assertThat(check(Mode.REQUIRED, path, null, "10.0.0.1")).isEqualTo(Result.MISSING);
        assertThat(check(Mode.REQUIRED, path, "quality=hd", "10.0.0.1"))
                .as("other parameters only")
                .isEqualTo(Result.MISSING);
        assertThat(check(Mode.REQUIRED, path, q(KEY, NOW - 1, path, null, null), "10.0.0.1"))
                .isEqualTo(Result.EXPIRED);
        assertThat(check(Mode.REQUIRED, path, q(OTHER, LATER, path, null, null), "10.0.0.1"))
                .as("signed with a key the server does not have")
                .isEqualTo(Result.BAD_SIGNATURE);
        assertThat(check(Mode.REQUIRED, "/vod/movie/seg-2.m4s", q(KEY, LATER, path, null, null), "10.0.0.1"))
                .as("a token for another path")
                .isEqualTo(Result.BAD_SIGNATURE);
        String token = q(KEY, LATER, path, null, null);
        assertThat(check(Mode.REQUIRED, path, token.replace("exp=" + LATER, "exp=" + (LATER + 86_400)), "10.0.0.1"))
                .as("expiry pushed back")
                .isEqualTo(Result.BAD_SIGNATURE);
        assertThat(check(Mode.REQUIRED, "/vod/other/seg-1.m4s", q(KEY, LATER, path, "/vod/movie/", null), "10.0.0.1"))
                .as("a prefix token used outside its prefix")
                .isEqualTo(Result.OUT_OF_SCOPE);
        assertThat(check(Mode.REQUIRED, path, q(KEY, LATER, path, null, "203.0.113.7"), "10.0.0.1"))
                .as("bound to another client")
                .isEqualTo(Result.OTHER_CLIENT);
        assertThat(check(Mode.REQUIRED, path, token + "&sig=AAAA", "10.0.0.1"))
                .as("sig twice")
                .isEqualTo(Result.MALFORMED);
        assertThat(check(Mode.REQUIRED, path, "exp=12x&sig=AAAA", "10.0.0.1")).isEqualTo(Result.MALFORMED);
        assertThat(check(Mode.REQUIRED, path, "exp=" + LATER, "10.0.0.1"))
                .as("no sig")
                .isEqualTo(Result.MALFORMED);
        assertThat(check(Mode.REQUIRED, path, "exp=" + LATER + "&sig=%%%", "10.0.0.1"))
                .isEqualTo(Result.MALFORMED);
    }

    @Test
    void theApplicationsOwnParametersAreLeftAloneWhateverTheyHold() {
        String path = "/vod/a.m4s";
        String token = q(KEY, LATER, path, null, null);
        assertThat(check(Mode.REQUIRED, path, "q=%zz&" + token + "&clip=1", "10.0.0.1"))
                .isEqualTo(Result.OK);
    }

    @Test
    void aPrefixTokenCoversEveryPathUnderIt() {
        String query = q(KEY, LATER, "/vod/movie/index.m3u8", "/vod/movie/", null);
        assertThat(check(Mode.REQUIRED, "/vod/movie/index.m3u8", query, "10.0.0.1"))
                .isEqualTo(Result.OK);
        assertThat(check(Mode.REQUIRED, "/vod/movie/720p/seg-9.m4s", query, "10.0.0.1"))
                .isEqualTo(Result.OK);
    }

    @Test
    void aTokenBoundToAClientPassesForThatClientInAnyWritingOfItsAddress() {
        String path = "/vod/a.m4s";
        assertThat(check(Mode.REQUIRED, path, q(KEY, LATER, path, null, "203.0.113.7"), "203.0.113.7"))
                .isEqualTo(Result.OK);
        assertThat(check(Mode.REQUIRED, path, q(KEY, LATER, path, null, "2001:db8::7"), "2001:db8:0:0:0:0:0:7"))
                .isEqualTo(Result.OK);
    }

    @Test
    void thePreviousKeyIsAcceptedSoAKeyCanRotate() {
        String path = "/vod/a.m4s";
        assertThat(check(Mode.REQUIRED, path, q(OLD, LATER, path, null, null), "10.0.0.1"))
                .isEqualTo(Result.OK);
        assertThat(UrlCheck.check(
                        Mode.REQUIRED, path, q(OLD, LATER, path, null, null), () -> "10.0.0.1", List.of(KEY), NOW))
                .as("once previous is gone")
                .isEqualTo(Result.BAD_SIGNATURE);
    }

    @ParameterizedTest
    @CsvSource({
        "OPTIONAL, none, UNSIGNED",
        "OPTIONAL, bad, BAD_SIGNATURE",
        "OPTIONAL, good, OK",
        "OFF, none, OK",
        "OFF, bad, OK",
        "REQUIRED, good, OK",
    })
    void modes(Mode mode, String token, Result expected) {
        String path = "/live/a.m4s";
        String query = switch (token) {
            case "none" -> null;
            case "bad" -> q(OTHER, LATER, path, null, null);
            default -> q(KEY, LATER, path, null, null);
        };
        assertThat(check(mode, path, query, "10.0.0.1")).isEqualTo(expected);
    }

    @Test
    void theLongestRulePrefixDecides() {
        UrlPolicy policy = UrlPolicy.of(new SignedUrlsConfig.Rule[] {
            new SignedUrlsConfig.Rule("/", "optional"),
            new SignedUrlsConfig.Rule("/vod/", "required"),
            new SignedUrlsConfig.Rule("/vod/free/", "off"),
        });
        assertThat(policy.modeFor("/index.html")).isEqualTo(Mode.OPTIONAL);
        assertThat(policy.modeFor("/vod/a.m4s")).isEqualTo(Mode.REQUIRED);
        assertThat(policy.modeFor("/vod/free/a.m4s")).isEqualTo(Mode.OFF);
        assertThat(UrlPolicy.of(new SignedUrlsConfig.Rule[0]).modeFor("/vod/a.m4s"))
                .isEqualTo(Mode.OFF);
    }
}
