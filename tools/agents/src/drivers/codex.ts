import { mkdirSync, writeFileSync } from "node:fs";
import type { AgentDriver } from "../agent-driver.js";

const keyVariable = "GATEWAY_KEY";

export const codex: AgentDriver = {
  // Codex reads files through its shell tool; the sandbox is read-only, so a `cat` is all it can do.
  readFileDirective: (_workDir, file) => `[sim:tool=exec_command ${JSON.stringify({ cmd: `cat ${file}` })}]`,
  invocation: ({ gateway, model, prompt, home }) => {
    const codexHome = `${home}/.codex`;
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      `${codexHome}/config.toml`,
      [
        `model = ${JSON.stringify(model)}`,
        `model_provider = "gateway"`,
        "",
        "[model_providers.gateway]",
        `name = "Unified model gateway"`,
        `base_url = ${JSON.stringify(`${gateway.origin}/v1`)}`,
        `env_key = "${keyVariable}"`,
        `wire_api = "responses"`,
        "",
        // Its usage analytics would go to OpenAI; a test run talks to the gateway only.
        "[analytics]",
        "enabled = false",
        "",
      ].join("\n"),
    );
    return {
      args: ["exec", "--skip-git-repo-check", "--sandbox", "read-only", prompt],
      env: { CODEX_HOME: codexHome, [keyVariable]: gateway.apiKey },
    };
  },
  // `codex exec` prints the transcript on stderr and only the last message on stdout.
  reply: (stdout) => ({ text: stdout.trim() }),
};
