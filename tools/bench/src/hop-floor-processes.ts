import * as grpc from "@grpc/grpc-js";
import express from "express";
import { Agent, request } from "undici";

// The processes of `hop-floor.ts`, one per role (argv[2]): the architecture's hop with none of the
// gateway's own work in it, to find the throughput the fixed stack (express, grpc-js, undici) allows.

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

const vendorAgent = new Agent({ keepAliveTimeout: 30_000 });

async function callVendor(url: string, body: Buffer): Promise<Buffer> {
  const response = await request(url, {
    method: "POST",
    // The simulator wants a key, as a vendor does.
    headers: { "content-type": "application/json", authorization: "Bearer sk-floor" },
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

/** Edge's place: express parses the JSON body and hands it to router over gRPC. */
function edge(routerAddress: string) {
  type Hop = { forward(body: Buffer, done: (error: grpc.ServiceError | null, answer: Buffer) => void): void };
  const Client = grpc.makeGenericClientConstructor(forward, "Hop");
  const client = new Client(routerAddress, grpc.credentials.createInsecure()) as unknown as Hop;
  const app = express();
  app.use(express.json());
  app.post("/v1/chat/completions", (req, res, next) => {
    const body = Buffer.from(JSON.stringify(req.body));
    client.forward(body, (error, answer) => (error ? next(error) : res.type("application/json").send(answer)));
  });
  const server = app.listen(0, "127.0.0.1", () => listening((server.address() as { port: number }).port));
  server.keepAliveTimeout = 65_000;
}

const [role, target] = process.argv.slice(2);
if (role === "router") router(target!);
else if (role === "edge") edge(target!);
else throw new Error(`unknown role ${role}`);
