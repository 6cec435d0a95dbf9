import type { ResolveKeyResponse } from "@gateway/proto/ledger/v1/ledger";
import { invalidRequest, type Logger, notFound } from "@gateway/shared";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { authenticate } from "./auth/authenticate.js";
import type { KeyCache } from "./auth/key-cache.js";
import type { EdgeClients } from "./clients.js";
import type { GeneratedFiles } from "./files/generated-files.js";
import { refuseDeepJson } from "./http/json-depth.js";
import { assignRequestId } from "./http/request-id.js";
import { sendError } from "./http/send-error.js";
import { traceRequest } from "./http/trace-request.js";
import type { ResponseStore } from "./responses/response-store.js";
import { routerServices } from "./router-services.js";
import { audioTranscriptions } from "./routes/audio-transcriptions.js";
import { chatCompletions } from "./routes/chat-completions.js";
import { completions } from "./routes/completions.js";
import { embeddings } from "./routes/embeddings.js";
import { generatedFile } from "./routes/generated-files.js";
import { liveness, readiness } from "./routes/health.js";
import { imageEdits, imageGenerations } from "./routes/images.js";
import { listModels, retrieveModel } from "./routes/models.js";
import { refusedEndpoints } from "./routes/refused-endpoints.js";
import { createResponse, deleteResponse, getResponse } from "./routes/responses.js";
import { getVideo, submitVideo, videoContent } from "./routes/videos.js";

export interface EdgeDependencies extends EdgeClients {
  keyCache: KeyCache<ResolveKeyResponse>;
  logger: Logger;
  bodyLimit: string;
  // Generated images answered as url, served at signed URLs.
  files: GeneratedFiles;
  // The address clients reach edge at, for absolute video URLs; absent, the request's Host is used.
  publicBaseUrl?: string | undefined;
  // Stored Responses API responses, for previous_response_id, retrieve and delete.
  responses: ResponseStore;
}

/** Body-parser failures are the client's: bad JSON or an oversized body. */
function bodyParserError(error: unknown) {
  const type = (error as { type?: string }).type;
  if (type === "entity.parse.failed") {
    return invalidRequest("We could not parse the JSON body of your request. Send valid JSON.", null, "invalid_json");
  }
  if (type === "entity.too.large") return invalidRequest("The request body is too large.", null, "request_too_large");
  return undefined;
}

export function createApp(deps: EdgeDependencies): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(assignRequestId);
  app.get("/healthz", liveness);
  app.get("/readyz", readiness(deps));
  // Outside /v1 and its API-key check: the URL's signature is the credential.
  app.get("/files/generated/:fileId", generatedFile(deps.files));
  app.get("/v1/videos/generations/:taskId/content", traceRequest, videoContent(deps.video));

  const v1 = express.Router();
  v1.use(traceRequest);
  v1.use(express.json({ limit: deps.bodyLimit, verify: refuseDeepJson }));
  v1.use(authenticate(deps.ledger, deps.keyCache));
  v1.post("/chat/completions", chatCompletions(deps.router));
  v1.get("/models", listModels(deps.router));
  v1.get("/models/:model", retrieveModel(deps.router));
  const services = routerServices(deps.router);
  v1.post("/completions", completions(services.completions));
  v1.post("/embeddings", embeddings(services.embeddings));
  v1.post("/images/generations", imageGenerations(services.images, deps.files));
  v1.post("/images/edits", imageEdits(services.images, deps.files));
  v1.post("/audio/transcriptions", audioTranscriptions(services.audio));
  v1.post("/videos/generations", submitVideo(deps.video, deps.publicBaseUrl));
  v1.get("/videos/generations/:taskId", getVideo(deps.video, deps.publicBaseUrl));
  v1.post("/responses", createResponse(deps.router, deps.responses, deps.logger));
  v1.get("/responses/:responseId", getResponse(deps.responses));
  v1.delete("/responses/:responseId", deleteResponse(deps.responses));
  v1.use(refusedEndpoints());
  v1.use((request: Request) => {
    throw notFound(`Unknown request URL: ${request.method} /v1${request.path}.`);
  });
  app.use("/v1", v1);

  app.use((request: Request, response: Response) =>
    sendError(response, notFound(`Unknown request URL: ${request.method} ${request.path}. Paths start with /v1.`)),
  );
  app.use((error: unknown, _request: Request, response: Response, _next: NextFunction) => {
    const clientError = bodyParserError(error);
    if (!clientError && !(error instanceof Error && error.name === "GatewayError")) {
      deps.logger.error({ err: error, request_id: response.locals.requestId }, "request failed");
    }
    if (response.headersSent) return response.end();
    sendError(response, clientError ?? error);
  });
  return app;
}
