package io.videoedge.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The operator's production logback.xml: one JSON object per line, the reconciled resource from the MDC. */
class StructuredLogsTest {
    @Test
    void eachLineIsAJsonObjectNamingTheResource() throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            JoranConfigurator config = new JoranConfigurator();
            config.setContext(context);
            config.doConfigure(getClass().getResource("/logback.xml"));
            // JOSDK puts these in the MDC around every reconcile (this context's own MDC adapter here)
            context.getMDCAdapter().put("resource.name", "edge");
            context.getMDCAdapter().put("resource.namespace", "video");
            context.getLogger("io.videoedge.operator.reconciler.VideoEdgeReconciler")
                    .info("Deleting NodeTuning {}", "edge-1");
        } finally {
            context.stop();
            System.setOut(stdout);
        }
        String[] lines = captured.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertThat(lines).as(captured.toString(StandardCharsets.UTF_8)).hasSize(1);
        JsonNode line = new ObjectMapper().readTree(lines[0]);
        assertThat(line.get("level").asText()).isEqualTo("INFO");
        assertThat(line.get("loggerName").asText()).endsWith("VideoEdgeReconciler");
        assertThat(line.get("formattedMessage").asText()).isEqualTo("Deleting NodeTuning edge-1");
        assertThat(line.get("mdc").get("resource.name").asText()).isEqualTo("edge");
        assertThat(line.get("mdc").get("resource.namespace").asText()).isEqualTo("video");
    }
}
