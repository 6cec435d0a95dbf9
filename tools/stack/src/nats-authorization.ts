import { loadUsageDefinition, natsNames, type StreamDefinition } from "@gateway/platform";

export type NatsServiceUser = "edge" | "router" | "ledger" | "video";

interface Permissions {
  publish: { allow: string[] } | { deny: string[] };
  subscribe: { allow: string[] };
}

/**
 * Each service's NATS permissions in one namespace: exactly the subjects it uses, plus the
 * JetStream API calls its client makes and the reply inboxes requests need.
 */
export function natsPermissions(namespace: string): Record<NatsServiceUser, Permissions> {
  const names = natsNames(namespace);
  const usage = loadUsageDefinition(namespace);
  const api = "$JS.API";
  // Publishers and the consumer both create or update the streams at start-up (ensureUsageStream).
  const streamSetUp = ({ stream }: StreamDefinition) => [
    `${api}.STREAM.INFO.${stream.name}`,
    `${api}.STREAM.CREATE.${stream.name}`,
    `${api}.STREAM.UPDATE.${stream.name}`,
  ];
  const consuming = ({ stream, consumer }: StreamDefinition) => [
    ...streamSetUp({ stream, consumer }),
    `${api}.CONSUMER.CREATE.${stream.name}`,
    `${api}.CONSUMER.CREATE.${stream.name}.${consumer.durable_name}`,
    `${api}.CONSUMER.CREATE.${stream.name}.${consumer.durable_name}.>`,
    `${api}.CONSUMER.DURABLE.CREATE.${stream.name}.${consumer.durable_name}`,
    `${api}.CONSUMER.INFO.${stream.name}.${consumer.durable_name}`,
    `${api}.CONSUMER.MSG.NEXT.${stream.name}.${consumer.durable_name}`,
    `$JS.ACK.${stream.name}.${consumer.durable_name}.>`,
  ];
  const replies = ["_INBOX.>"];
  const usagePublisher = (extra: string[]): Permissions => ({
    publish: { allow: [names.usageSubject(">"), `${api}.INFO`, ...streamSetUp(usage), ...extra] },
    subscribe: { allow: [names.catalogueChangedSubject, ...replies] },
  });
  return {
    edge: { publish: { deny: [">"] }, subscribe: { allow: [names.keyRevokedSubject, ...replies] } },
    // Router announces catalogue changes and sends request logs; video only follows the catalogue.
    router: usagePublisher([
      names.catalogueChangedSubject,
      names.requestLogSubject,
      ...streamSetUp(usage.request_logs),
    ]),
    video: usagePublisher([]),
    ledger: {
      publish: {
        allow: [names.keyRevokedSubject, `${api}.INFO`, ...consuming(usage), ...consuming(usage.request_logs)],
      },
      subscribe: { allow: [names.catalogueChangedSubject, ...replies] },
    },
  };
}

/** A nats-server `authorization` block with one user per service (and any extra users, e.g. an operator). */
export function natsAuthorizationBlock(
  namespace: string,
  passwords: Record<NatsServiceUser, string>,
  extraUsers: Array<{ user: string; password: string }> = [],
): string {
  const permissions = natsPermissions(namespace);
  const users = [
    ...(Object.keys(permissions) as NatsServiceUser[]).map((user) => ({
      user,
      password: passwords[user],
      permissions: permissions[user],
    })),
    ...extraUsers,
  ];
  return `authorization {\n  users = ${JSON.stringify(users, null, 2).replaceAll("\n", "\n  ")}\n}\n`;
}
