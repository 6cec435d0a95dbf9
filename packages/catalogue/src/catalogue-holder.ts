import type { Logger } from "@gateway/platform";
import { Catalogue, type CatalogueSources } from "./catalogue.js";

/**
 * Keeps the catalogue in force. A request reads `current` once and keeps that object, so a
 * swap never changes the catalogue of a request already admitted.
 */
export class CatalogueHolder {
  // The store's revision in force; undefined while the catalogue comes from a file.
  revision: number | undefined;

  constructor(
    public current: Catalogue,
    private readonly logger: Logger,
    private readonly file?: { path: string; sources: CatalogueSources },
  ) {
    this.reportDisabled();
  }

  static fromFile(path: string, sources: CatalogueSources, logger: Logger): CatalogueHolder {
    return new CatalogueHolder(Catalogue.fromFile(path, sources), logger, { path, sources });
  }

  // One line an operator sees at start-up and on each reload: what production will not serve, and why.
  private reportDisabled(): void {
    const { disabledChannels, modelsWithoutChannels } = this.current;
    if (disabledChannels.length === 0) return;
    this.logger.warn(
      { disabled_channels: disabledChannels, models_without_channels: modelsWithoutChannels },
      `channels without vendor credentials are disabled: ${disabledChannels.join(", ")}`,
    );
  }

  /** Re-reads the file; a broken one is refused and the old catalogue stays. */
  reload(): boolean {
    if (!this.file) return false;
    const { path, sources } = this.file;
    try {
      this.current = Catalogue.fromFile(path, sources);
      this.logger.info({ path }, "catalogue reloaded");
      this.reportDisabled();
      return true;
    } catch (error) {
      this.logger.error({ err: error, path }, "catalogue reload refused; the previous catalogue stays in force");
      return false;
    }
  }

  /** Puts the store's catalogue of `revision` in force. */
  swap(next: Catalogue, revision: number): void {
    this.current = next;
    this.revision = revision;
    this.logger.info({ revision }, "catalogue reloaded");
    this.reportDisabled();
  }
}
