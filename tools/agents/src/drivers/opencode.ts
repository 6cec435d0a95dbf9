import { writeFileSync } from "node:fs";
import type { AgentDriver } from "../agent-driver.js";

interface OpencodeEvent {
  type: string;
  part?: { type?: string; text?: string };
  error?: unknown;
}

const provider = "gateway";

export const opencode: AgentDriver = {
  readFileDirective: (workDir, file) => `[sim:tool=read ${JSON.stringify({ filePath: `${workDir}/${file}` })}]`,
  invocation: ({ gateway, model, prompt, workDir }) => {
    const config = {
      $schema: "https://opencode.ai/config.json",
      autoupdate: false,
      share: "disabled",
      provider: {
        [provider]: {
          npm: "@ai-sdk/openai-compatible",
          name: "Unified model gateway",
          options: { baseURL: `${gateway.origin}/v1`, apiKey: gateway.apiKey },
          models: { [model]: {} },
        },
      },
      model: `${provider}/${model}`,
      small_model: `${provider}/${model}`,
    };
    writeFileSync(`${workDir}/opencode.json`, JSON.stringify(config));
    return {
      // `opencode run` puts each argument holding a space in escaped double quotes, which would
      // hide the directive's JSON from the simulator: the prompt goes word by word. A given
      // title spares the extra title-generation call.
      args: [
        "run",
        "--format",
        "json",
        "--title",
        "coding agents test",
        "-m",
        `${provider}/${model}`,
        ...prompt.split(" "),
      ],
      env: { OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1" },
    };
  },
  reply(stdout) {
    const events = stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as OpencodeEvent);
    const texts = events.filter((event) => event.type === "text" && event.part?.text !== undefined);
    const text = texts.at(-1)?.part?.text ?? "";
    const failure = events.find((event) => event.type === "error");
    return failure ? { text, error: JSON.stringify(failure.error ?? failure) } : { text };
  },
};
