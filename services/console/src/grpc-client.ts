import { fromGrpcError, grpcTarget, insecureChannel, serviceClientOptions, tracedMetadata } from "@gateway/platform";
import { Client } from "@grpc/grpc-js";

interface UnaryMethod {
  path: string;
  requestSerialize: (value: never) => Buffer;
  responseDeserialize: (value: Buffer) => unknown;
}

type RequestOf<M> = M extends { requestSerialize: (value: infer Request) => Buffer } ? Request : never;
type ResponseOf<M> = M extends { responseDeserialize: (value: Buffer) => infer Response } ? Response : never;

/** A generated gRPC service's unary methods as promises; a failed call rejects with the GatewayError the service meant. */
export type PromiseClient<Service> = {
  [Name in keyof Service]: (request: RequestOf<Service[Name]>) => Promise<ResponseOf<Service[Name]>>;
};

const deadlineMs = 10_000;

/** One long-lived channel to `url` (one address, a list of replicas or a gRPC target URI), every call signed as the `console` service. */
export function connectService<Service extends Record<string, UnaryMethod>>(
  service: Service,
  url: string,
  serviceTokenSecret: string | undefined,
): { client: PromiseClient<Service>; close(): void } {
  const channel = new Client(grpcTarget(url), insecureChannel(), serviceClientOptions("console", serviceTokenSecret));
  const call = (method: UnaryMethod) => (request: never) =>
    new Promise((resolve, reject) => {
      channel.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        tracedMetadata(),
        { deadline: Date.now() + deadlineMs },
        (error, response) => (error || response === undefined ? reject(fromGrpcError(error)) : resolve(response)),
      );
    });
  const client = Object.fromEntries(Object.entries(service).map(([name, method]) => [name, call(method)]));
  return { client: client as PromiseClient<Service>, close: () => channel.close() };
}
