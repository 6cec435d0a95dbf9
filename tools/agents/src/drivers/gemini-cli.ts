import { mkdirSync, writeFileSync } from "node:fs";
import type { AgentDriver } from "../agent-driver.js";

interface GeminiCliResult {
  response?: string;
  error?: { message?: string };
}

// Without a chosen auth type the headless CLI exits 41 ("Invalid auth method"); usage
// statistics would go to Google, which a test run must not call.
const settings = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
};

export const geminiCli: AgentDriver = {
  readFileDirective: (_workDir, file) => `[sim:tool=read_file ${JSON.stringify({ file_path: file })}]`,
  invocation: ({ gateway, model, prompt, home }) => {
    mkdirSync(`${home}/.gemini`, { recursive: true });
    writeFileSync(`${home}/.gemini/settings.json`, JSON.stringify(settings));
    return {
      args: ["-p", prompt, "-m", model, "--output-format", "json"],
      env: {
        GEMINI_API_KEY: gateway.apiKey,
        GOOGLE_GEMINI_BASE_URL: gateway.origin,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      },
    };
  },
  reply(stdout) {
    const result = JSON.parse(stdout) as GeminiCliResult;
    const text = result.response ?? "";
    return result.error ? { text, error: result.error.message ?? JSON.stringify(result.error) } : { text };
  },
};
