import type { Message } from "@gateway/proto/router/v1/chat";
import { type Redis, serviceUnavailable } from "@gateway/shared";
import type { RenderedResponse } from "../openai-wire/render-response.js";

/** A stored response and the conversation up to and including it, minus instructions. */
export interface StoredResponse {
  response: RenderedResponse;
  conversation: Message[];
}

/**
 * Stored responses, for `previous_response_id`, retrieve and delete. Redis with a TTL is a
 * deliberately simple first store: it is neither durable nor listed per account; a durable
 * store (a database table) would replace it without changing this interface.
 */
export class ResponseStore {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string,
    private readonly ttlSeconds: number,
  ) {}

  // The account in a hash tag: another account's id is simply a key that does not exist.
  private key(accountId: string, responseId: string) {
    return `${this.namespace}:{account:${accountId}}:response:${responseId}`;
  }

  async save(accountId: string, stored: StoredResponse): Promise<void> {
    await this.command(() =>
      this.redis.set(this.key(accountId, stored.response.id), JSON.stringify(stored), { EX: this.ttlSeconds }),
    );
  }

  async load(accountId: string, responseId: string): Promise<StoredResponse | undefined> {
    const value = await this.command(() => this.redis.get(this.key(accountId, responseId)));
    return value ? (JSON.parse(value) as StoredResponse) : undefined;
  }

  /** Whether there was such a response to remove. */
  async remove(accountId: string, responseId: string): Promise<boolean> {
    return (await this.command(() => this.redis.del(this.key(accountId, responseId)))) > 0;
  }

  private async command<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch {
      throw serviceUnavailable("Stored responses are temporarily unavailable. Please retry.");
    }
  }
}
