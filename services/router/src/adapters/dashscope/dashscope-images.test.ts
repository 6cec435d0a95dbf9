import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Catalogue, type CatalogueModel } from "@gateway/catalogue";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyedChannel } from "../../routing/channel-keys.js";
import { defaultTimeouts } from "../../vendor-http/vendor-client.js";
import { dashScopeApiRoot, dashScopeImages } from "./dashscope-images.js";

describe("dashScopeApiRoot", () => {
  it("puts DashScope's own API beside its compatible mode, in every region and behind the simulator", () => {
    expect(dashScopeApiRoot("https://dashscope.aliyuncs.com/compatible-mode/v1")).toBe(
      "https://dashscope.aliyuncs.com/api/v1",
    );
    expect(dashScopeApiRoot("https://dashscope-intl.aliyuncs.com/compatible-mode/v1/")).toBe(
      "https://dashscope-intl.aliyuncs.com/api/v1",
    );
    expect(dashScopeApiRoot("http://127.0.0.1:8090/v1")).toBe("http://127.0.0.1:8090/api/v1");
  });
});

// The exchange cnblogs/dashscope-sdk recorded against DashScope (tools/replay/recordings, manifest ids
// qwen-image-synthesis-*): a submission, a poll while the task ran, and the poll that found it ended.
const recordings = new URL("../../../../../tools/replay/recordings/", import.meta.url);
// The source keeps its files with a byte-order mark, which DashScope does not send.
const recordedText = (file: string) => readFileSync(new URL(file, recordings), "utf8").replace(/^\uFEFF/, "");
const recordedHead = (file: string) => {
  const [requestLine = "", ...lines] = recordedText(file).trim().split("\n");
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
  );
  return { method: requestLine.split(" ")[0], path: requestLine.split(" ")[1], headers };
};
const submitHead = recordedHead("qwen/cnblogs-image-synthesis-nosse.request.header.txt");
const submitBody = JSON.parse(recordedText("qwen/cnblogs-image-synthesis-nosse.request.body.json"));
const pollHead = recordedHead("qwen/cnblogs-get-task-image-synthesis-success-nosse.request.header.txt");
const submitted = recordedText("qwen/cnblogs-image-synthesis-nosse.response.body.txt");
const running = recordedText("qwen/cnblogs-get-task-running-nosse.response.body.txt");
const succeeded = recordedText("qwen/cnblogs-get-task-image-synthesis-success-nosse.response.body.txt");
const resultUrls: string[] = JSON.parse(succeeded).output.results.map((result: { url: string }) => result.url);

/** Every key path of a JSON value, array items sharing `[]`. */
const keyPaths = (value: unknown, path = ""): string[] =>
  value && typeof value === "object"
    ? Object.entries(value).flatMap(([key, item]) => [
        `${path}.${key}`,
        ...keyPaths(item, `${path}.${Array.isArray(value) ? "[]" : key}`),
      ])
    : [];

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let origin: string;
const seen: Seen[] = [];

// Answers as DashScope did, in order; the result URLs (Alibaba's OSS) are served here, their paths kept.
beforeAll(async () => {
  let polls = 0;
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      const path = request.url ?? "";
      seen.push({ method: request.method ?? "", path, headers: request.headers, body });
      const json = (text: string) => {
        response.writeHead(200, { "content-type": "application/json;charset=UTF-8" });
        response.end(text);
      };
      if (path === submitHead.path) return json(submitted);
      if (path.startsWith("/api/v1/tasks/")) {
        polls += 1;
        return json(polls === 1 ? running : succeeded.replaceAll(/https:\/\/[^/"]+/g, origin));
      }
      response.writeHead(200, { "content-type": "image/png" });
      response.end(`png at ${path}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

// The shipped entry's image rules; the simulator address only gives every model a channel, unused here.
const catalogue = Catalogue.fromFile(
  fileURLToPath(new URL("../../../../../infra/catalogue/models.yaml", import.meta.url)),
  {
    env: {},
    simulatorUrl: "http://127.0.0.1:1",
  },
);

describe("the DashScope image adapter held to DashScope's recorded exchange", () => {
  it("submits as the recorded request did, polls the task id it was given, and takes every result", async () => {
    const model = catalogue.find("qwen-image-plus", "premium") as CatalogueModel;
    const answer = await dashScopeImages.generateImages({
      request: { caller: undefined, model: "qwen-image-plus", prompt: "a running cat", n: 1 },
      model,
      channel: { baseUrl: `${origin}/v1`, key: { secret: "sk-dashscope" } } as unknown as KeyedChannel,
      signal: new AbortController().signal,
      timeouts: defaultTimeouts,
    });

    const [submission, ...rest] = seen;
    expect({ method: submission!.method, path: submission!.path }).toEqual({
      method: submitHead.method,
      path: submitHead.path,
    });
    for (const name of ["x-dashscope-async", "content-type"]) {
      expect(submission!.headers[name], name).toBe(submitHead.headers[name]);
    }
    expect(submission!.headers.authorization).toBe("Bearer sk-dashscope");
    const body = JSON.parse(submission!.body);
    // Every field sent is one the recorded request has (it also sent wanx-v1's style and a seed).
    expect(keyPaths(submitBody)).toEqual(expect.arrayContaining(keyPaths(body)));
    expect(body.parameters.size).toMatch(/^\d+\*\d+$/);
    expect(submitBody.parameters.size).toMatch(/^\d+\*\d+$/);

    const polls = rest.filter((request) => request.path.startsWith("/api/v1/tasks/"));
    expect(polls.map((poll) => `${poll.method} ${poll.path}`)).toEqual(Array(2).fill(`GET ${pollHead.path}`));
    const fetched = rest.filter((request) => !request.path.startsWith("/api/v1/tasks/"));
    expect(fetched.map((request) => request.path)).toEqual(resultUrls.map((url) => new URL(url).pathname));
    expect(answer.images.map((image) => Buffer.from(image.b64Json, "base64").toString())).toEqual(
      resultUrls.map((url) => `png at ${new URL(url).pathname}`),
    );
  });
});
