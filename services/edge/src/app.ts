import {
  BodyBudget,
  type HttpDrain,
  invalidRequest,
  type Logger,
  notFound,
  observeBodyBudget,
  type TrustedProxies,
} from "@gateway/platform";
import type { ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";
import express, { type Express, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { anthropicKey, authenticator, bearerKey, googleKey } from "./auth/authenticate.js";
import type { KeyCache } from "./auth/key-cache.js";
import type { EdgeClients } from "./clients.js";
import { ConversationWorkers } from "./conversation-work/conversation-workers.js";
import { conversations } from "./conversation-work/conversations.js";
import type { GeneratedFiles } from "./files/generated-files.js";
import { googleErrorBody } from "./gemini-wire/google-errors.js";
import { type ConversationLimits, type ConversationWire, conversationBounds } from "./http/conversation-bounds.js";
import { jsonBody as boundedJsonBody, smallJsonBodyLimits } from "./http/json-body.js";
import { multipartBody } from "./http/multipart-body.js";
import { publicBaseUrl } from "./http/public-base-url.js";
import { QuotaRefusals } from "./http/quota-refusals.js";
import { assignRequestId } from "./http/request-id.js";
import { sendError, speakErrorsAs } from "./http/send-error.js";
import { traceRequest } from "./http/trace-request.js";

import { countRequests } from "./metrics/count-requests.js";
import type { ResponseStore } from "./responses/response-store.js";
import { audioLimits, audioTranscriptions } from "./routes/audio-transcriptions.js";
import { chatCompletions } from "./routes/chat-completions.js";
import { completions } from "./routes/completions.js";
import { embeddings } from "./routes/embeddings.js";
import { geminiRoutes, speaksGemini } from "./routes/gemini.js";
import { generatedFile } from "./routes/generated-files.js";
import { liveness, readiness } from "./routes/health.js";
import { editLimits, imageEdits, imageGenerations } from "./routes/images.js";
import { anthropicWireFormat, countMessageTokens, createMessage, speaksAnthropic } from "./routes/messages.js";
import { listModels, retrieveModel } from "./routes/models.js";
import { refusedEndpoints } from "./routes/refused-endpoints.js";
import { createResponse, deleteResponse, getResponse } from "./routes/responses.js";
import { getVideo, submitVideo, videoContent } from "./routes/videos.js";

export interface EdgeDependencies extends EdgeClients {
  keyCache: KeyCache<ResolveKeyResponse>;
  logger: Logger;
  // The largest chat, Responses or completions body in bytes; smaller endpoints have their own.
  bodyLimitBytes: number;
  // The JSON body bytes handled at once (BODY_BYTES_IN_FLIGHT), across every route and tenant.
  bodyBytesInFlight: number;
  // REQUEST_MAX_PARTS and REQUEST_MAX_TOOL_CALLS: what one conversation may carry.
  conversationLimits: ConversationLimits;
  // Generated images answered as url, served at signed URLs.
  files: GeneratedFiles;
  // PUBLIC_BASE_URL: where clients reach edge, for absolute image and video links.
  publicBaseUrl?: string | undefined;
  // GATEWAY_TRUSTED_PROXIES: whose X-Forwarded-* headers name the client's address, scheme and host.
  trustedProxies: TrustedProxies;
  // Stored Responses API responses, for previous_response_id, retrieve and delete.
  responses: ResponseStore;
  // SIGTERM: readiness, refusing new requests, cutting what outlives the grace period.
  drain: HttpDrain<Response>;
}

// Below this many JSON values a conversation is validated and translated in place: real agents'
// requests hold hundreds, and a worker's hop would only add latency to them.
const offloadAboveValues = 10_000;
// One: on the two cores of the smallest machine served, a second busy worker would take the
// CPU the event loop needs; large requests wait their turn instead, holding only the queue.
const conversationWorkers = 1;

export function createApp(deps: EdgeDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("trust proxy", deps.trustedProxies);
  const baseUrlOf = publicBaseUrl(deps.publicBaseUrl);
  app.use(assignRequestId);
  app.use(countRequests());
  // Before draining and the API-key check, so even those refusals come in Anthropic's shape.
  app.use(["/v1/messages", "/v1/models"], anthropicWireFormat);
  app.get("/healthz", liveness);
  app.get("/readyz", readiness(deps));
  // Google's clients read Google's error shape, whatever refuses their request (draining included).
  const googleErrors = speakErrorsAs(googleErrorBody);
  app.use("/v1beta", googleErrors);
  app.use("/v1", (request, response, next) => (speaksGemini(request) ? googleErrors(request, response, next) : next()));
  // After the probes, which answer truthfully while draining.
  app.use(deps.drain.admit);
  // Outside /v1 and its API-key check: the URL's signature is the credential.
  app.get("/files/generated/:fileId", generatedFile(deps.files));
  app.get("/v1/videos/generations/:taskId/content", traceRequest, videoContent(deps.video));

  const v1 = express.Router();
  v1.use(traceRequest);
  // Before any body is read: a caller without a valid key costs a header check (and at most one
  // key lookup), never the reading or parsing of what it sent.
  // One authenticator for every ingress, so an address guessing keys is slowed down on all of them.
  const authenticate = authenticator(deps.ledger, deps.keyCache);
  const [openAIKeys, anthropicKeys] = [authenticate(bearerKey), authenticate(anthropicKey)];
  v1.use((request, response, next) => (speaksAnthropic(request) ? anthropicKeys : openAIKeys)(request, response, next));
  const budget = new BodyBudget(deps.bodyBytesInFlight);
  observeBodyBudget(budget);
  const admission = { budget, unpaid: new QuotaRefusals() };
  v1.use(admission.unpaid.watch);
  const jsonBody = (limitBytes: number) => boundedJsonBody(limitBytes, admission);
  const conversationBody = jsonBody(deps.bodyLimitBytes);
  const bounded = (wire: ConversationWire) => conversationBounds(wire, deps.conversationLimits);
  // Bodies whose validation and translation would hold the event loop go to worker threads as bytes.
  const offloadedBody = boundedJsonBody(deps.bodyLimitBytes, admission, false, offloadAboveValues);
  const prepare = conversations(new ConversationWorkers(conversationWorkers, deps.conversationLimits));
  const services = deps.routerServices;
  v1.post("/chat/completions", offloadedBody, bounded("chat"), chatCompletions(services.chat, prepare));
  v1.post("/messages", conversationBody, bounded("messages"), createMessage(deps.router));
  v1.post("/messages/count_tokens", conversationBody, bounded("messages"), countMessageTokens(deps.router));
  v1.get("/models", listModels(deps.router));
  v1.get("/models/:model", retrieveModel(deps.router));
  v1.post("/completions", conversationBody, completions(services.completions));
  v1.post("/embeddings", jsonBody(smallJsonBodyLimits.embeddings), embeddings(services.embeddings));
  v1.post(
    "/images/generations",
    jsonBody(smallJsonBodyLimits.imageGenerations),
    imageGenerations(services.images, deps.files, baseUrlOf),
  );
  // Multipart routes stream their body with their own limits (see http/read-multipart.ts).
  v1.post("/images/edits", multipartBody(editLimits, admission), imageEdits(services.images, deps.files, baseUrlOf));
  v1.post("/audio/transcriptions", multipartBody(audioLimits, admission), audioTranscriptions(services.audio));
  v1.post("/videos/generations", jsonBody(smallJsonBodyLimits.videoSubmit), submitVideo(deps.video, baseUrlOf));
  v1.get("/videos/generations/:taskId", getVideo(deps.video, baseUrlOf));
  const responsesBody = boundedJsonBody(deps.bodyLimitBytes, admission, true);
  v1.post(
    "/responses",
    responsesBody,
    bounded("responses"),
    createResponse({
      router: deps.router,
      relay: deps.routerServices.responsesRelay,
      store: deps.responses,
      admission,
      logger: deps.logger,
    }),
  );
  v1.get("/responses/:responseId", getResponse(deps.responses));
  v1.delete("/responses/:responseId", deleteResponse(deps.responses));
  v1.use(refusedEndpoints());
  v1.use((request: Request) => {
    throw notFound(`Unknown request URL: ${request.method} /v1${request.path}.`);
  });

  // Gemini's API at v1beta and, as @google/genai 3 calls it, at v1 beside OpenAI's.
  const gemini = express.Router();
  gemini.use(traceRequest);
  gemini.use(authenticate(googleKey));
  gemini.use(admission.unpaid.watch);
  const geminiBounds = bounded("gemini");
  const boundedBody =
    (parse: RequestHandler): RequestHandler =>
    (request, response, next) =>
      parse(request, response, (error?: unknown) => (error ? next(error) : geminiBounds(request, response, next)));
  const geminiBodies = {
    generation: boundedBody(offloadedBody),
    conversation: boundedBody(conversationBody),
    embeddings: jsonBody(smallJsonBodyLimits.embeddings),
  };
  gemini.use(geminiRoutes({ router: deps.router, ...services, prepare }, geminiBodies));
  app.use("/v1beta", gemini);
  app.use("/v1", (request, response, next) => (speaksGemini(request) ? gemini(request, response, next) : next()));
  app.use("/v1", v1);

  app.use((request: Request, response: Response) =>
    sendError(response, notFound(`Unknown request URL: ${request.method} ${request.path}. Paths start with /v1.`)),
  );
  app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => {
    // Express decodes path parameters lazily: a path that is not valid percent-encoding is the client's.
    if (error instanceof URIError) {
      return sendError(
        response,
        invalidRequest("The request path is not valid percent-encoding.", null, "invalid_url"),
      );
    }
    if (!(error instanceof Error && error.name === "GatewayError")) {
      deps.logger.error({ err: error, request_id: response.locals.requestId }, "request failed");
    }
    if (response.headersSent) return response.end();
    sendError(response, error);
  });
  return app;
}
