import { callUnary, echoed, fromGrpcError, invalidRequest, modelId, notFound } from "@gateway/platform";
import type { Caller } from "@gateway/proto/common/v1/common";
import type { EmbeddingServiceClient } from "@gateway/proto/router/v1/embeddings";
import type { RouterServiceClient } from "@gateway/proto/router/v1/router";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { ChatClient } from "../conversation-work/chat-client.js";
import type { PrepareConversation } from "../conversation-work/conversations.js";
import { camelCaseKeys } from "../gemini-wire/camel-case-keys.js";
import {
  batchEmbedContentsSchema,
  embedContentSchema,
  renderBatchEmbedContents,
  renderEmbedContent,
  toCanonicalEmbed,
} from "../gemini-wire/gemini-embeddings.js";
import { countTokensSchema } from "../gemini-wire/gemini-request-schema.js";
import { renderGenerateContent } from "../gemini-wire/render-gemini.js";
import { renderGeminiModel, servesGeminiMethods } from "../gemini-wire/render-gemini-model.js";
import { toCanonicalGemini } from "../gemini-wire/to-canonical-gemini.js";
import { routerMetadata } from "../http/body-budget.js";
import { callRouter } from "../http/call-router.js";
import { relayCall } from "../http/relay-call.js";
import { validateBody } from "../openai-wire/validate-body.js";
import { geminiStreamFrames } from "../sse/gemini-stream-frames.js";

export interface GeminiServices {
  router: RouterServiceClient;
  chat: ChatClient;
  prepare: PrepareConversation;
  embeddings: EmbeddingServiceClient;
}

/**
 * Body parsers by size: conversations take the deployment's BODY_LIMIT, embeddings their own;
 * generateContent's large bodies are left as bytes for a worker, countTokens' are parsed.
 */
export interface GeminiBodies {
  generation: RequestHandler;
  conversation: RequestHandler;
  embeddings: RequestHandler;
}

const chatDeadlineMs = 15 * 60_000;
const shortDeadlineMs = 5 * 60_000;

const callerOf = (response: Response) => response.locals.caller as Caller;

/** The path's model: a bare id, bounded like every other model id. */
function modelOf(request: Request): string {
  const parsed = modelId.safeParse(String(request.params.model));
  if (!parsed.success) throw invalidRequest("The model name in the path is not valid.", "model");
  return parsed.data;
}

function generate(chat: ChatClient, prepare: PrepareConversation, stream: boolean) {
  return async (request: Request, response: Response) => {
    const task = { wire: "gemini", caller: callerOf(response), model: modelOf(request), stream } as const;
    const { call, includeThoughts } = await prepare(request, task);
    if (stream) {
      const relayed = chat.streamChatCompletion(call, routerMetadata(response), {
        deadline: Date.now() + chatDeadlineMs,
      });
      relayCall(relayed, response, geminiStreamFrames({ sse: request.query.alt === "sse", includeThoughts }));
      return;
    }
    const completion = await callRouter(chat.createChatCompletion.bind(chat), call, response, chatDeadlineMs);
    response.json(renderGenerateContent(completion, includeThoughts));
  };
}

function countTokens(router: RouterServiceClient) {
  return async (request: Request, response: Response) => {
    const body = validateBody(countTokensSchema, camelCaseKeys(request.body));
    const generateRequest = body.generateContentRequest ?? { contents: body.contents! };
    const canonical = toCanonicalGemini(generateRequest, modelOf(request), callerOf(response), false);
    const count = await callRouter(router.countChatTokens.bind(router), canonical, response, shortDeadlineMs);
    response.json({ totalTokens: count.inputTokens });
  };
}

function embed(service: EmbeddingServiceClient, batch: boolean) {
  return async (request: Request, response: Response) => {
    const body = camelCaseKeys(request.body);
    const requests = batch
      ? validateBody(batchEmbedContentsSchema, body).requests
      : [validateBody(embedContentSchema, body)];
    const canonical = toCanonicalEmbed(requests, modelOf(request), callerOf(response));
    const list = await callRouter(service.createEmbeddings.bind(service), canonical, response, shortDeadlineMs);
    response.json(batch ? renderBatchEmbedContents(list) : renderEmbedContent(list));
  };
}

const defaultPageSize = 50;
const largestPageSize = 1000;

/** Page tokens are the offset of the page's first model, opaque to clients. */
function pageOf(request: Request): { offset: number; size: number } {
  const size = request.query.pageSize === undefined ? defaultPageSize : Number(request.query.pageSize);
  if (!Number.isInteger(size) || size < 1) throw invalidRequest("pageSize must be a positive integer.", "pageSize");
  const token = request.query.pageToken;
  if (token === undefined || token === "") return { offset: 0, size: Math.min(size, largestPageSize) };
  const offset = Number(Buffer.from(String(token), "base64url").toString());
  if (!Number.isInteger(offset) || offset < 0) throw invalidRequest("pageToken is not one this API gave.", "pageToken");
  return { offset, size: Math.min(size, largestPageSize) };
}

function listModels(router: RouterServiceClient) {
  return async (request: Request, response: Response) => {
    const { offset, size } = pageOf(request);
    const { modelGroup } = callerOf(response);
    const list = await callUnary(router.listModels.bind(router), { modelGroup }, 10_000).catch((error: unknown) => {
      throw fromGrpcError(error);
    });
    const models = list.models.filter(servesGeminiMethods);
    const next = offset + size < models.length ? Buffer.from(String(offset + size)).toString("base64url") : undefined;
    response.json({
      models: models.slice(offset, offset + size).map(renderGeminiModel),
      ...(next && { nextPageToken: next }),
    });
  };
}

function getModel(router: RouterServiceClient) {
  return async (request: Request, response: Response) => {
    const id = modelOf(request);
    const { modelGroup } = callerOf(response);
    const model = await callUnary(router.getModel.bind(router), { modelGroup, id }, 10_000).catch((error: unknown) => {
      throw fromGrpcError(error);
    });
    if (!servesGeminiMethods(model)) throw notFound(`models/${id} is not found for API version v1beta.`);
    response.json(renderGeminiModel(model));
  };
}

const modelAction = /^\/models\/[^/]+:[A-Za-z]+$/;

/**
 * Whether a request under /v1 is a Gemini client's: a `models/{model}:{action}` call, or a model
 * lookup that presents its key Google's way (OpenAI's clients send `Authorization: Bearer`).
 */
export function speaksGemini(request: Request): boolean {
  if (request.method === "POST") return modelAction.test(request.path);
  const googleKey = request.headers["x-goog-api-key"] !== undefined || request.query.key !== undefined;
  return request.method === "GET" && request.path.startsWith("/models") && googleKey && !request.headers.authorization;
}

/**
 * Google's generative language API (v1beta) over the gateway's models: `models/{model}:{action}`
 * for every chat model (generate, stream, count) and embedding model (embed), and the model list.
 * Mounted after authentication; errors are rendered in Google's shape by the mount.
 */
export function geminiRoutes(services: GeminiServices, bodies: GeminiBodies): express.Router {
  const actions: Record<string, [RequestHandler, ReturnType<typeof generate>]> = {
    generateContent: [bodies.generation, generate(services.chat, services.prepare, false)],
    streamGenerateContent: [bodies.generation, generate(services.chat, services.prepare, true)],
    countTokens: [bodies.conversation, countTokens(services.router)],
    embedContent: [bodies.embeddings, embed(services.embeddings, false)],
    batchEmbedContents: [bodies.embeddings, embed(services.embeddings, true)],
  };
  const routes = express.Router();
  routes.get("/models", listModels(services.router));
  routes.get("/models/:model", getModel(services.router));
  routes.post("/models/:model\\::action", (request: Request, response: Response, next: NextFunction) => {
    const name = String(request.params.action);
    const action = Object.hasOwn(actions, name) ? actions[name] : undefined;
    if (!action) return next(notFound(`Method ${echoed(name)} is not served on models.`));
    const [parse, handle] = action;
    parse(request, response, (error?: unknown) => {
      if (error) return next(error);
      handle(request, response).catch(next);
    });
  });
  routes.use((request: Request) => {
    throw notFound(`Unknown request URL: ${request.method} ${request.baseUrl}${echoed(request.path)}.`);
  });
  return routes;
}
