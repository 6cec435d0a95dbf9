import type { ChannelKey } from "@gateway/catalogue";
import { type CatalogueModel, type Channel, vendorModelId } from "@gateway/catalogue";
import { VendorError } from "@gateway/outbound-http";
import { echoed, invalidRequest, notFound } from "@gateway/platform";
import { ChatRequest } from "@gateway/proto/router/v1/chat";
import type { ChannelTestReport, KeyTestResult, TestChannelRequest } from "@gateway/proto/router/v1/router";
import { upstreamModel } from "./route-request.js";
import type { RouterDependencies } from "./router-dependencies.js";

type TestDependencies = Pick<RouterDependencies, "catalogue" | "adapterFor" | "keys" | "timeouts" | "health">;

const CHAT = "/v1/chat/completions";
// As little as a vendor will answer: a word of output.
const probe = (model: string) =>
  ChatRequest.fromPartial({ model, messages: [{ role: "user", text: "Say OK." }], maxTokens: 16 });
const MAX_ANSWER_CHARS = 200;

/** The channel and the chat model to test it with: the one asked for, else the first it serves. */
function channelAndModel(
  deps: TestDependencies,
  request: TestChannelRequest,
): { channel: Channel; model: CatalogueModel } {
  const catalogue = deps.catalogue.current;
  if (!catalogue.source.channels[request.channel])
    throw notFound(`No channel is named \`${echoed(request.channel)}\`.`);
  const served = catalogue.all().filter((model) => model.channels.some((channel) => channel.name === request.channel));
  if (served.length === 0) {
    throw invalidRequest(
      `The channel \`${request.channel}\` serves no model: it has no vendor key configured.`,
      "channel",
    );
  }
  const model = request.model
    ? served.find((entry) => entry.id === request.model)
    : served.find((entry) => entry.endpoints.includes(CHAT));
  if (!model) {
    const which = request.model ? `\`${echoed(request.model)}\`` : "a chat model";
    throw invalidRequest(`The channel \`${request.channel}\` does not serve ${which}.`, "model");
  }
  if (!model.endpoints.includes(CHAT))
    throw invalidRequest(`\`${model.id}\` is not a chat model; test with one.`, "model");
  return { channel: model.channels.find((channel) => channel.name === request.channel)!, model };
}

async function testKey(deps: TestDependencies, channel: Channel, model: CatalogueModel, key: ChannelKey) {
  const keyed = { ...channel, key };
  const vendorModel = upstreamModel(model, keyed);
  const startedAt = Date.now();
  const result: KeyTestResult = {
    keyId: key.id,
    maskedKey: key.masked,
    ok: false,
    latencyMs: 0,
    status: 0,
    answer: "",
    refusal: "",
    disabled: false,
  };
  try {
    const completion = await deps.adapterFor(keyed).complete({
      request: probe(vendorModel.id),
      model: vendorModel,
      channel: keyed,
      signal: AbortSignal.timeout(deps.timeouts.firstByteMs),
      timeouts: deps.timeouts,
    });
    const text = completion.choices[0]?.message?.content ?? "";
    Object.assign(result, { ok: true, status: 200, answer: text.slice(0, MAX_ANSWER_CHARS) });
  } catch (error) {
    if (error instanceof VendorError) {
      Object.assign(result, {
        status: error.vendorStatus,
        answer: error.vendorMessage,
        refusal: error.keyRefusal ?? "",
      });
    } else {
      result.answer = error instanceof Error ? error.message : String(error);
    }
  }
  result.latencyMs = Date.now() - startedAt;
  result.disabled = deps.keys.disabler.disablement(channel.name, key.id) !== undefined;
  return result;
}

/**
 * Sends a minimal chat request through the channel with each of its keys in turn and reports
 * what the vendor said and how long it took. Nothing is billed, and a refused key is only
 * reported: the operator, who may be testing a key just re-enabled, decides. The channel's
 * circuit hears the verdict, so its health does not read healthy after every key failed: one
 * answer is a success, and with none each key's failure counts as a failed request would.
 */
export function testChannel(deps: TestDependencies) {
  return async (request: TestChannelRequest): Promise<ChannelTestReport> => {
    const { channel, model } = channelAndModel(deps, request);
    const keys: KeyTestResult[] = [];
    for (const key of channel.keys) keys.push(await testKey(deps, channel, model, key));
    if (keys.some((key) => key.ok)) deps.health.recordSuccess(channel.name);
    else for (const _failed of keys) deps.health.recordFailure(channel.name);
    return { channel: channel.name, model: model.id, upstreamModel: vendorModelId(channel, model.id), keys };
  };
}
