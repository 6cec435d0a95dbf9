import {
  callersOfEveryMethod,
  type GrpcHealth,
  inSpan,
  type Logger,
  logHandlerErrors,
  serveHealth,
  serviceServerOptions,
  unaryHandler,
} from "@gateway/platform";
import { VideoServiceService, VideoTestClockServiceService } from "@gateway/proto/video/v1/video";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import type { Clock } from "./clock.js";
import { type ContentDependencies, readVideoContent } from "./content/read-content.js";
import { getVideo } from "./tasks/get-video.js";
import { type SubmitDependencies, submitVideo } from "./tasks/submit-video.js";

export interface VideoServerOptions {
  host: string;
  port: number;
  /** Serves VideoTestClockService, which moves this process's clock; never in production. */
  testMode: boolean;
  serviceTokenSecret: string | undefined;
}

// Video tasks are edge's to submit and read; the test clock is for test tooling.
const callers = {
  ...callersOfEveryMethod(VideoServiceService, ["edge"]),
  ...callersOfEveryMethod(VideoTestClockServiceService, ["tools"]),
};

/** Serves VideoService on host:port (0 = any free port) and resolves with the bound port. */
export async function startGrpcServer(
  deps: SubmitDependencies & ContentDependencies & { clock: Clock; logger: Logger },
  options: VideoServerOptions,
): Promise<{ server: Server; port: number; health: GrpcHealth }> {
  const server = new Server(serviceServerOptions(options.serviceTokenSecret, callers));
  const submit = submitVideo(deps);
  const get = getVideo(deps);
  server.addService(
    VideoServiceService,
    logHandlerErrors(deps.logger, {
      submitVideo: unaryHandler((request: Parameters<typeof submit>[0]) =>
        inSpan("video.submit", { "gateway.model": request.model }, () => submit(request)),
      ),
      getVideo: unaryHandler((request: Parameters<typeof get>[0]) =>
        inSpan("video.get", { "video.task_id": request.taskId }, () => get(request)),
      ),
      readVideoContent: readVideoContent(deps),
    }),
  );
  if (options.testMode) {
    server.addService(
      VideoTestClockServiceService,
      logHandlerErrors(deps.logger, {
        setClockOffset: unaryHandler(async (request: { offsetMs: number }) => {
          deps.clock.setOffset(request.offsetMs);
          return { offsetMs: deps.clock.offset };
        }),
      }),
    );
  }
  const health = serveHealth(server, [
    VideoServiceService,
    ...(options.testMode ? [VideoTestClockServiceService] : []),
  ]);
  const address = options.host.includes(":") ? `[${options.host}]:${options.port}` : `${options.host}:${options.port}`;
  const boundPort = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { server, port: boundPort, health };
}
