import type { OpenedCatalogue } from "@gateway/catalogue/store";
import { applyEdit, CatalogueRefused, catalogueEditSchema, maskedCatalogue } from "@gateway/catalogue/store";
import type { Logger } from "@gateway/platform";

type Live = NonNullable<OpenedCatalogue["live"]>;

/**
 * The catalogue's read and write operations, behind the admin API: a change is validated whole
 * by the store, then this router reloads it and tells every other one (and ledger) at once.
 */
export class CatalogueAdmin {
  constructor(
    private readonly live: Live,
    private readonly logger: Logger,
  ) {}

  async read() {
    const stored = await this.live.store.load();
    return { revision: stored?.revision ?? 0, catalogue: stored && maskedCatalogue(stored.data) };
  }

  /** Applies one change as the admin APIs receive it; a malformed or invalid one is a CatalogueRefused. */
  async change(actor: string, raw: unknown) {
    const parsed = catalogueEditSchema.safeParse(raw);
    if (!parsed.success) {
      throw new CatalogueRefused(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
    }
    const edit = parsed.data;
    const { revision, changed } = await this.live.store.change({
      actor,
      // A confirmed move of a channel's keys to a new address is named as such in the audit.
      action: edit.action === "channel.update" && edit.move_keys ? "channel.update+move_keys" : edit.action,
      apply: (current) => applyEdit(edit, current),
    });
    if (changed.length > 0) {
      this.logger.info(
        { actor, action: edit.action, revision, changed: changed.map((object) => `${object.kind}:${object.name}`) },
        "catalogue changed",
      );
      await this.live.follower.refresh();
      await this.live.announce(revision);
    }
    return { revision, changed: changed.map(({ kind, name }) => ({ kind, name })) };
  }

  history(limit: number) {
    return this.live.store.history(limit);
  }
}
