import { Client, Server, ServerCredentials, type ServiceDefinition } from "@grpc/grpc-js";
import { afterAll, describe, expect, it } from "vitest";
import { channelOptions, grpcTarget, insecureChannel } from "./grpc.js";

describe("grpcTarget", () => {
  it("passes one host:port on as it is", () => {
    expect(grpcTarget("127.0.0.1:50051")).toBe("127.0.0.1:50051");
    expect(grpcTarget(" router:50051 ")).toBe("router:50051");
  });

  it("makes a list of IPv4 addresses one ipv4 target", () => {
    expect(grpcTarget("127.0.0.1:50051, 127.0.0.1:50061")).toBe("ipv4:127.0.0.1:50051,127.0.0.1:50061");
  });

  it("makes a list of IPv6 addresses one ipv6 target", () => {
    expect(grpcTarget("[::1]:50051,[::1]:50061")).toBe("ipv6:[::1]:50051,[::1]:50061");
  });

  it("passes a gRPC target URI on as it is", () => {
    const headless = "dns:///router-grpc.gateway.svc.cluster.local:50051";
    expect(grpcTarget(headless)).toBe(headless);
    expect(grpcTarget("ipv4:10.0.0.1:1,10.0.0.2:1")).toBe("ipv4:10.0.0.1:1,10.0.0.2:1");
  });

  it("refuses a list with a name, mixed families or no port", () => {
    expect(() => grpcTarget("router-0:50051,router-1:50051")).toThrow(/dns:\/\/\/name:port/);
    expect(() => grpcTarget("127.0.0.1:1,[::1]:2")).toThrow(/one family/);
    expect(() => grpcTarget("127.0.0.1:1,127.0.0.1")).toThrow(/is not host:port/);
  });
});

// One unary method whose answer says which server gave it.
const method = {
  path: "/test.Which/Ask",
  requestStream: false,
  responseStream: false,
  requestSerialize: (value: Buffer) => value,
  requestDeserialize: (value: Buffer) => value,
  responseSerialize: (value: Buffer) => value,
  responseDeserialize: (value: Buffer) => value,
};
const service: ServiceDefinition = { ask: method };
const servers: Server[] = [];

async function serverNamed(name: string): Promise<number> {
  const server = new Server();
  server.addService(service, {
    ask: (_call: unknown, callback: (error: null, value: Buffer) => void) => callback(null, Buffer.from(name)),
  });
  servers.push(server);
  return new Promise((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
}

afterAll(() => {
  for (const server of servers) server.forceShutdown();
});

describe("a client on a list of replicas", () => {
  it("spreads its calls over every replica", async () => {
    const ports = [await serverNamed("a"), await serverNamed("b")];
    const client = new Client(grpcTarget(ports.map((port) => `127.0.0.1:${port}`).join(",")), insecureChannel(), {
      ...channelOptions,
    });
    const ask = () =>
      new Promise<string>((resolve, reject) =>
        client.makeUnaryRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          Buffer.alloc(0),
          (error, value) => (error || !value ? reject(error) : resolve(value.toString())),
        ),
      );
    const answers: string[] = [];
    for (let call = 0; call < 10; call++) answers.push(await ask());
    client.close();
    expect(new Set(answers)).toEqual(new Set(["a", "b"]));
  });
});
