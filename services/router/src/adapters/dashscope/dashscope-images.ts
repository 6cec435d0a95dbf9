import { setTimeout as delay } from "node:timers/promises";
import { GatewayError, invalidRequest, serverError, serviceUnavailable } from "@gateway/platform";
import type { GenerateImagesRequest } from "@gateway/proto/router/v1/images";
import { z } from "zod";
import { sizeAsked } from "../../media/image-rules.js";
import { parseVendorJson } from "../../vendor-http/parse-vendor-json.js";
import { getBytes, getJson, postJson } from "../../vendor-http/vendor-client.js";
import type { AdapterCall } from "../chat-adapter.js";
import type { MediaAdapter, VendorImages } from "../openai-media/media-adapter.js";

// DashScope's asynchronous text-to-image API (Qwen-Image on Model Studio): a POST with
// X-DashScope-Async answers a task id at once; GET /tasks/{id} tells PENDING, RUNNING, then
// SUCCEEDED with result URLs (valid for a day) or FAILED with a code and message.
const submittedSchema = z.object({ output: z.object({ task_id: z.string().min(1) }) });
const taskSchema = z.object({
  output: z.object({
    task_status: z.string(),
    results: z.array(z.object({ url: z.string().url().optional() })).optional(),
    code: z.string().optional(),
    message: z.string().optional(),
  }),
});
type TaskOutput = z.infer<typeof taskSchema>["output"];

// Polls start soon (the simulator and small images finish in well under a second) and back off
// to Alibaba's own examples' pace; the whole wait is bounded by the call's first-byte timeout.
const firstPollMs = 200;
const slowestPollMs = 3_000;
// A 2K PNG is a few MB; more than this is no image the gateway relays.
const largestResultBytes = 32 * 1024 * 1024;
// Task failures that are the request's own doing (its prompt or parameters), answered as a 400.
const clientFaultCodes = new Set(["DataInspectionFailed", "InvalidParameter", "IPInfringementSuspect"]);

/** The DashScope API root for a channel: its compatible-mode base (or a simulator's /v1) swapped for /api/v1. */
export function dashScopeApiRoot(baseUrl: string): string {
  return `${baseUrl.replace(/\/(compatible-mode\/)?v1\/?$/, "")}/api/v1`;
}

export function toImageSynthesisBody(request: GenerateImagesRequest, call: Pick<AdapterCall<unknown>, "model">) {
  return {
    model: call.model.id,
    input: { prompt: request.prompt },
    // DashScope writes sizes as W*H.
    parameters: { size: sizeAsked(call.model, request).replace("x", "*"), n: request.n ?? 1 },
  };
}

function failure(output: TaskOutput): Error {
  const message = `The image task failed: ${output.message ?? output.code ?? "no reason given"}`;
  if (output.code && clientFaultCodes.has(output.code))
    return invalidRequest(message, "prompt", "vendor_rejected_request");
  return serviceUnavailable(`${message}. Please retry.`);
}

/** Polls the task until it ends, within the call's first-byte timeout. */
async function awaitTask(call: AdapterCall<GenerateImagesRequest>, root: string, taskId: string): Promise<TaskOutput> {
  const headers = { authorization: `Bearer ${call.channel.key.secret}` };
  const deadline = Date.now() + call.timeouts.firstByteMs;
  let pause = firstPollMs;
  for (;;) {
    // Rejects at once when the client goes away, which ends the wait and the request.
    await delay(Math.min(pause, Math.max(0, deadline - Date.now())), undefined, { signal: call.signal });
    const raw = await getJson({ url: `${root}/tasks/${encodeURIComponent(taskId)}`, headers, ...callOptions(call) });
    const { output } = parseVendorJson(taskSchema, raw);
    if (output.task_status === "SUCCEEDED") return output;
    if (output.task_status === "FAILED") throw failure(output);
    if (output.task_status !== "PENDING" && output.task_status !== "RUNNING") {
      // UNKNOWN (expired or never made) and CANCELED leave nothing to wait for.
      throw serviceUnavailable(`The image task ended ${output.task_status}. Please retry.`);
    }
    // A 504 and not a 503, so the router does not submit the task again: the first may still
    // finish, and Alibaba bills every image it makes.
    if (Date.now() >= deadline) {
      const seconds = Math.round(call.timeouts.firstByteMs / 1000);
      throw new GatewayError(
        504,
        "server_error",
        "image_task_timeout",
        `The image task did not finish within ${seconds} s.`,
      );
    }
    pause = Math.min(pause * 2, slowestPollMs);
  }
}

const callOptions = (call: AdapterCall<unknown>) => ({ signal: call.signal, timeouts: call.timeouts });

const notOffered = (what: string) => () => {
  throw serverError(`DashScope offers no ${what} the gateway relays.`);
};

export const dashScopeImages: MediaAdapter = {
  async generateImages(call) {
    const root = dashScopeApiRoot(call.channel.baseUrl);
    const submitted = await postJson({
      url: `${root}/services/aigc/text2image/image-synthesis`,
      headers: { authorization: `Bearer ${call.channel.key.secret}`, "x-dashscope-async": "enable" },
      body: toImageSynthesisBody(call.request, call),
      ...callOptions(call),
    });
    const task = await awaitTask(call, root, parseVendorJson(submittedSchema, submitted).output.task_id);
    const urls = (task.results ?? []).map((result) => result.url);
    if (urls.length === 0 || urls.some((url) => url === undefined)) {
      throw serviceUnavailable("The image task succeeded without an image. Please retry.");
    }
    // Result URLs are signed and public: fetched without the key, stored by the gateway as for base64 answers.
    const images = await Promise.all(
      urls.map(async (url) => ({
        b64Json: (await getBytes({ url: url!, headers: {}, ...callOptions(call) }, largestResultBytes)).toString(
          "base64",
        ),
        revisedPrompt: undefined,
      })),
    );
    // DashScope's task answers no creation time: the router stamps the request's.
    return { created: 0, images } satisfies VendorImages;
  },
  editImages: notOffered("image edits"),
  transcribe: notOffered("transcriptions"),
};
