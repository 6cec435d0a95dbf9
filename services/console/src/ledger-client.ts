import { ConsoleServiceService } from "@gateway/proto/ledger/v1/console";
import { fromGrpcError, insecureChannel, serviceClientOptions, tracedMetadata } from "@gateway/shared";
import { Client } from "@grpc/grpc-js";

type Methods = typeof ConsoleServiceService;
type RequestOf<M> = M extends { requestSerialize: (value: infer Request) => Buffer } ? Request : never;
type ResponseOf<M> = M extends { responseDeserialize: (value: Buffer) => infer Response } ? Response : never;

/** ledger.v1.ConsoleService as promises; a failed call rejects with the GatewayError ledger meant. */
export type Ledger = {
  [Name in keyof Methods]: (request: RequestOf<Methods[Name]>) => Promise<ResponseOf<Methods[Name]>>;
};

const deadlineMs = 10_000;

/** One long-lived channel to ledger, every call signed as the `console` service. */
export function connectLedger(url: string, serviceTokenSecret: string | undefined): { ledger: Ledger; close(): void } {
  const client = new Client(url, insecureChannel(), serviceClientOptions("console", serviceTokenSecret));
  const call =
    <Request, Response>(method: {
      path: string;
      requestSerialize: (value: Request) => Buffer;
      responseDeserialize: (value: Buffer) => Response;
    }) =>
    (request: Request) =>
      new Promise<Response>((resolve, reject) => {
        client.makeUnaryRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          request,
          tracedMetadata(),
          { deadline: Date.now() + deadlineMs },
          (error, response) => (error || response === undefined ? reject(fromGrpcError(error)) : resolve(response)),
        );
      });
  const ledger = Object.fromEntries(
    Object.entries(ConsoleServiceService).map(([name, method]) => [name, call(method as Methods["getBalance"])]),
  ) as unknown as Ledger;
  return { ledger, close: () => client.close() };
}
