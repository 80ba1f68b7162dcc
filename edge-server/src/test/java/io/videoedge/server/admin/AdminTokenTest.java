package io.videoedge.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.videoedge.server.admin.AdminToken.Verdict;
import org.junit.jupiter.api.Test;

class AdminTokenTest {
    @Test
    void allowsOnlyTheBearerTokenTheServerHas() {
        assertThat(AdminToken.check("Bearer s3cret", "s3cret")).isEqualTo(Verdict.ALLOWED);
        assertThat(AdminToken.check("bearer  s3cret ", "s3cret")).isEqualTo(Verdict.ALLOWED);
        assertThat(AdminToken.check("Bearer s3cre", "s3cret")).isEqualTo(Verdict.WRONG);
        assertThat(AdminToken.check("Bearer s3cret2", "s3cret")).isEqualTo(Verdict.WRONG);
        assertThat(AdminToken.check(null, "s3cret")).isEqualTo(Verdict.MISSING);
        assertThat(AdminToken.check("Basic czNjcmV0", "s3cret")).isEqualTo(Verdict.MISSING);
        assertThat(AdminToken.check("Bearer ", "s3cret")).isEqualTo(Verdict.MISSING);
    }

    @Test
    void refusesEverythingWhenTheServerHasNoToken() {
        assertThat(AdminToken.check("Bearer anything", null)).isEqualTo(Verdict.NOT_CONFIGURED);
        assertThat(AdminToken.check("Bearer ", "")).isEqualTo(Verdict.NOT_CONFIGURED);
        assertThat(Verdict.NOT_CONFIGURED.status).startsWith("403");
        assertThat(Verdict.MISSING.status).startsWith("401");
    }
}
