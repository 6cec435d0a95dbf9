import { loadUsageDefinition, natsNames } from "@gateway/platform";

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
  const { stream, consumer } = loadUsageDefinition(namespace);
  const api = "$JS.API";
  // Publishers and the consumer both create or update the stream at start-up (ensureUsageStream).
  const streamSetUp = [
    `${api}.INFO`,
    `${api}.STREAM.INFO.${stream.name}`,
    `${api}.STREAM.CREATE.${stream.name}`,
    `${api}.STREAM.UPDATE.${stream.name}`,
  ];
  const replies = ["_INBOX.>"];
  const usagePublisher = (catalogue: string[]): Permissions => ({
    publish: { allow: [names.usageSubject(">"), ...streamSetUp, ...catalogue] },
    subscribe: { allow: [names.catalogueChangedSubject, ...replies] },
  });
  return {
    edge: { publish: { deny: [">"] }, subscribe: { allow: [names.keyRevokedSubject, ...replies] } },
    // Router announces catalogue changes; video only follows them.
    router: usagePublisher([names.catalogueChangedSubject]),
    video: usagePublisher([]),
    ledger: {
      publish: {
        allow: [
          names.keyRevokedSubject,
          ...streamSetUp,
          `${api}.CONSUMER.CREATE.${stream.name}`,
          `${api}.CONSUMER.CREATE.${stream.name}.${consumer.durable_name}`,
          `${api}.CONSUMER.CREATE.${stream.name}.${consumer.durable_name}.>`,
          `${api}.CONSUMER.DURABLE.CREATE.${stream.name}.${consumer.durable_name}`,
          `${api}.CONSUMER.INFO.${stream.name}.${consumer.durable_name}`,
          `${api}.CONSUMER.MSG.NEXT.${stream.name}.${consumer.durable_name}`,
          `$JS.ACK.${stream.name}.${consumer.durable_name}.>`,
        ],
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
