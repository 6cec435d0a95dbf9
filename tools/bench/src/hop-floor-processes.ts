import * as grpc from "@grpc/grpc-js";
import express from "express";
import { Agent, request } from "undici";

// The processes of `hop-floor.ts`, one per role (argv[2]): the architecture's hop with none of the
// gateway's own work in it, to find the throughput the fixed stack (express, grpc-js, undici) allows.

const bytes = (value: Buffer) => value;
const method = (path: string, responseStream: boolean) => ({
  path,
  requestStream: false,
  responseStream,
  requestSerialize: bytes,
  requestDeserialize: bytes,
  responseSerialize: bytes,
  responseDeserialize: bytes,
});
// Forward answers in one message; Stream relays the vendor's streamed body chunk by chunk, as router does.
const hop: grpc.ServiceDefinition = {
  forward: method("/floor.Hop/Forward", false),
  stream: method("/floor.Hop/Stream", true),
};

const listening = (port: number) => process.stdout.write(`listening ${port}\n`);

const vendorAgent = new Agent({ keepAliveTimeout: 30_000 });

const callVendor = (url: string, body: Buffer) =>
  request(url, {
    method: "POST",
    // The simulator wants a key, as a vendor does.
    headers: { "content-type": "application/json", authorization: "Bearer sk-floor" },
    body,
    dispatcher: vendorAgent,
  });

async function relayChunks(vendorUrl: string, call: grpc.ServerWritableStream<Buffer, Buffer>): Promise<void> {
  const response = await callVendor(vendorUrl, call.request);
  for await (const chunk of response.body) call.write(chunk);
  call.end();
}

/** Router's place: a gRPC server whose one method forwards the bytes to the vendor over HTTP. */
function router(vendorUrl: string) {
  const server = new grpc.Server();
  server.addService(hop, {
    forward: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
      callVendor(vendorUrl, call.request)
        .then((response) => response.body.arrayBuffer())
        .then((answer) => done(null, Buffer.from(answer)), done);
    },
    stream: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      relayChunks(vendorUrl, call).catch((error: Error) => call.emit("error", error));
    },
  });
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error;
    listening(port);
  });
}

type Hop = {
  forward(body: Buffer, done: (error: grpc.ServiceError | null, answer: Buffer) => void): void;
  stream(body: Buffer): grpc.ClientReadableStream<Buffer>;
};

/** Writes each streamed message to the HTTP response as it arrives. */
function relayStream(messages: grpc.ClientReadableStream<Buffer>, res: express.Response, next: express.NextFunction) {
  messages.on("data", (chunk: Buffer) => {
    if (!res.headersSent) res.type("text/event-stream");
    res.write(chunk);
  });
  messages.on("end", () => res.end());
  messages.on("error", (error) => (res.headersSent ? res.destroy(error) : next(error)));
}

/** Edge's place: express parses the JSON body and hands it to router over gRPC, streamed when asked. */
function edge(routerAddress: string) {
  const Client = grpc.makeGenericClientConstructor(hop, "Hop");
  const client = new Client(routerAddress, grpc.credentials.createInsecure()) as unknown as Hop;
  const app = express();
  app.use(express.json());
  app.post("/v1/chat/completions", (req, res, next) => {
    const body = Buffer.from(JSON.stringify(req.body));
    if (req.body.stream === true) relayStream(client.stream(body), res, next);
    else client.forward(body, (error, answer) => (error ? next(error) : res.type("application/json").send(answer)));
  });
  const server = app.listen(0, "127.0.0.1", () => listening((server.address() as { port: number }).port));
  server.keepAliveTimeout = 65_000;
}

const [role, target] = process.argv.slice(2);
if (role === "router") router(target!);
else if (role === "edge") edge(target!);
else throw new Error(`unknown role ${role}`);
