import { createServer } from "node:http";
import * as grpc from "@grpc/grpc-js";
import express from "express";
import { Agent, request } from "undici";

// The processes of `hop-floor.ts`, one per role (argv[2]): the architecture's hop with none of the
// gateway's own work in it, to find the throughput the fixed stack (express, grpc-js, undici) allows.

const completion = JSON.stringify({
  id: "chatcmpl-floor",
  object: "chat.completion",
  created: 0,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", content: "Hello!" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
});

const bytes = { serialize: (value: Buffer) => value, deserialize: (value: Buffer) => value };
const forward: grpc.ServiceDefinition = {
  forward: {
    path: "/floor.Hop/Forward",
    requestStream: false,
    responseStream: false,
    requestSerialize: bytes.serialize,
    requestDeserialize: bytes.deserialize,
    responseSerialize: bytes.serialize,
    responseDeserialize: bytes.deserialize,
  },
};

const listening = (port: number) => process.stdout.write(`listening ${port}\n`);

/** A plain Node HTTP server answering a fixed chat completion. */
function upstream() {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(completion));
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, "127.0.0.1", () => listening((server.address() as { port: number }).port));
}

const vendorAgent = new Agent({ keepAliveTimeout: 30_000 });

async function callVendor(url: string, body: Buffer | string): Promise<Buffer> {
  const response = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    dispatcher: vendorAgent,
  });
  return Buffer.from(await response.body.arrayBuffer());
}

/** Router's place: a gRPC server whose one method forwards the bytes to the vendor over HTTP. */
function router(vendorUrl: string) {
  const server = new grpc.Server();
  server.addService(forward, {
    forward: (call: grpc.ServerUnaryCall<Buffer, Buffer>, done: grpc.sendUnaryData<Buffer>) => {
      callVendor(vendorUrl, call.request).then((answer) => done(null, answer), done);
    },
  });
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error;
    listening(port);
  });
}

/** Edge's place: express parses the JSON body and hands it over (gRPC to `target`, or the vendor directly). */
function edge(target: string, viaGrpc: boolean) {
  type Hop = { forward(body: Buffer, done: (error: grpc.ServiceError | null, answer: Buffer) => void): void };
  const Client = grpc.makeGenericClientConstructor(forward, "Hop");
  const client = viaGrpc ? (new Client(target, grpc.credentials.createInsecure()) as unknown as Hop) : undefined;
  const app = express();
  app.use(express.json());
  app.post("/v1/chat/completions", (req, res, next) => {
    const body = Buffer.from(JSON.stringify(req.body));
    const answered = (answer: Buffer) => res.type("application/json").send(answer);
    if (!client) return void callVendor(target, body).then(answered, next);
    client.forward(body, (error, answer) => (error ? next(error) : answered(answer)));
  });
  const server = app.listen(0, "127.0.0.1", () => listening((server.address() as { port: number }).port));
  server.keepAliveTimeout = 65_000;
}

const [role, target] = process.argv.slice(2);
if (role === "upstream") upstream();
else if (role === "router") router(target!);
else if (role === "edge") edge(target!, true);
else if (role === "edge-direct") edge(target!, false);
else throw new Error(`unknown role ${role}`);
