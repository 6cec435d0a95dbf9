import { callUnary } from "@gateway/platform";

/** Every unary method of a generated gRPC client, as a function answering a promise. */
export type Promised<Client> = {
  [Name in keyof Client]: Client[Name] extends (
    request: infer Request,
    metadata: infer _Metadata,
    options: infer _Options,
    callback: (error: infer _Error, response: infer Response) => void,
  ) => unknown
    ? (request: Request) => Promise<Response>
    : never;
};

export function promisedClient<Client extends object>(client: Client, timeoutMs = 30_000): Promised<Client> {
  return new Proxy({} as Promised<Client>, {
    get: (_target, name) => (request: unknown) =>
      callUnary(
        (client[name as keyof Client] as (...args: never[]) => unknown).bind(client) as never,
        request,
        timeoutMs,
      ),
  });
}
