import {
  BodyBudget,
  type CallerPolicy,
  callersOfEveryMethod,
  logHandlerErrors,
  observeBodyBudget,
  serveHealth,
  serviceServerOptions,
  unaryHandler,
} from "@gateway/platform";
import { AudioServiceService } from "@gateway/proto/router/v1/audio";
import { CatalogueAdminServiceService } from "@gateway/proto/router/v1/catalogue_admin";
import { CompletionServiceService } from "@gateway/proto/router/v1/completions";
import { EmbeddingServiceService } from "@gateway/proto/router/v1/embeddings";
import { ImageServiceService } from "@gateway/proto/router/v1/images";
import { ResponsesRelayServiceService } from "@gateway/proto/router/v1/responses_relay";
import { RouterServiceService } from "@gateway/proto/router/v1/router";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { bodyBudgetInterceptor } from "./body-budget-interceptor.js";
import { CallsInFlight } from "./calls-in-flight.js";
import type { CatalogueAdmin } from "./catalogue-admin/catalogue-admin.js";
import { catalogueAdminHandlers } from "./catalogue-admin/catalogue-admin-grpc.js";
import { describeCatalogue, getChannelHealth } from "./handlers/admin-views.js";
import { countChatTokens } from "./handlers/count-chat-tokens.js";
import { createChatCompletion } from "./handlers/create-chat-completion.js";
import { createCompletion } from "./handlers/create-completion.js";
import { createEmbeddings } from "./handlers/create-embeddings.js";
import { createTranscription } from "./handlers/create-transcription.js";
import { editImages, generateImages, type MediaDependencies } from "./handlers/images.js";
import { getModel, getServingStatus, listModels } from "./handlers/models.js";
import { relayResponse } from "./handlers/relay-response.js";
import type { RouterDependencies } from "./handlers/router-dependencies.js";
import { streamChatCompletion } from "./handlers/stream-chat-completion.js";
import { streamCompletion } from "./handlers/stream-completion.js";
import { testChannel } from "./handlers/test-channel.js";

// Only edge turns client requests into calls here: anyone else could run a request billed to any account.
const callers: CallerPolicy = {
  ...callersOfEveryMethod(RouterServiceService, ["edge"]),
  ...callersOfEveryMethod(CompletionServiceService, ["edge"]),
  ...callersOfEveryMethod(EmbeddingServiceService, ["edge"]),
  ...callersOfEveryMethod(ImageServiceService, ["edge"]),
  ...callersOfEveryMethod(AudioServiceService, ["edge"]),
  ...callersOfEveryMethod(ResponsesRelayServiceService, ["edge"]),
  // The console's admin pages: read-only views that run nothing and bill no one.
  [RouterServiceService.getChannelHealth.path]: ["console"],
  [RouterServiceService.describeCatalogue.path]: ["console"],
  // And its public price list: a group's models and their prices, as /v1/models lists them.
  [RouterServiceService.listModels.path]: ["edge", "console"],
  // Operators (the CLI signs as tools) test a channel: it calls the vendor but bills no one.
  [RouterServiceService.testChannel.path]: ["console", "tools"],
  // The console's catalogue pages change models, groups and channels (audited with the operator's name).
  ...callersOfEveryMethod(CatalogueAdminServiceService, ["console"]),
};

/** Binds the router's gRPC service and resolves with the port actually bound. */
export async function startRouterServer(
  // catalogueAdmin: present when the catalogue lives in the store (it can be changed at run time).
  deps: RouterDependencies & MediaDependencies & { catalogueAdmin?: CatalogueAdmin },
  host: string,
  port: number,
  serviceTokenSecret: string | undefined,
  bodyBytesInFlight: number,
) {
  const calls = new CallsInFlight();
  const budget = new BodyBudget(bodyBytesInFlight);
  observeBodyBudget(budget);
  const server = new Server(
    serviceServerOptions(serviceTokenSecret, callers, {
      "grpc.max_receive_message_length": 64 * 1024 * 1024,
      interceptors: [bodyBudgetInterceptor(budget)],
    }),
  );
  server.addService(
    RouterServiceService,
    logHandlerErrors(
      deps.logger,
      calls.track({
        createChatCompletion: unaryHandler(createChatCompletion(deps)),
        streamChatCompletion: streamChatCompletion(deps),
        countChatTokens: unaryHandler(countChatTokens(deps)),
        listModels: unaryHandler(listModels(deps)),
        getModel: unaryHandler(getModel(deps)),
        getServingStatus: unaryHandler(getServingStatus(deps)),
        getChannelHealth: unaryHandler(getChannelHealth(deps)),
        describeCatalogue: unaryHandler(describeCatalogue(deps)),
        testChannel: unaryHandler(testChannel(deps)),
      }),
    ),
  );
  server.addService(
    CompletionServiceService,
    logHandlerErrors(
      deps.logger,
      calls.track({
        createCompletion: unaryHandler(createCompletion(deps)),
        streamCompletion: streamCompletion(deps),
      }),
    ),
  );
  server.addService(
    ResponsesRelayServiceService,
    logHandlerErrors(deps.logger, calls.track({ relayResponse: relayResponse(deps) })),
  );
  server.addService(
    EmbeddingServiceService,
    logHandlerErrors(deps.logger, calls.track({ createEmbeddings: unaryHandler(createEmbeddings(deps)) })),
  );
  server.addService(
    ImageServiceService,
    logHandlerErrors(
      deps.logger,
      calls.track({
        generateImages: unaryHandler(generateImages(deps, deps)),
        editImages: unaryHandler(editImages(deps, deps)),
      }),
    ),
  );
  server.addService(
    AudioServiceService,
    logHandlerErrors(deps.logger, calls.track({ createTranscription: unaryHandler(createTranscription(deps)) })),
  );
  if (deps.catalogueAdmin) {
    server.addService(
      CatalogueAdminServiceService,
      logHandlerErrors(deps.logger, catalogueAdminHandlers(deps.catalogueAdmin)),
    );
  }
  const health = serveHealth(server, [
    RouterServiceService,
    CompletionServiceService,
    EmbeddingServiceService,
    ImageServiceService,
    AudioServiceService,
  ]);
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${port}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { server, port: boundPort, health, calls };
}
