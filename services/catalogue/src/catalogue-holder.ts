import type { Logger } from "@gateway/shared";
import { Catalogue, type CatalogueSources } from "./catalogue.js";

/** Keeps the catalogue in force and swaps it on reload only when the new file is valid. */
export class CatalogueHolder {
  current: Catalogue;

  constructor(
    private readonly path: string,
    private readonly sources: CatalogueSources,
    private readonly logger: Logger,
  ) {
    this.current = Catalogue.fromFile(path, sources);
    this.reportDisabled();
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

  reload(): boolean {
    try {
      this.current = Catalogue.fromFile(this.path, this.sources);
      this.logger.info({ path: this.path }, "catalogue reloaded");
      this.reportDisabled();
      return true;
    } catch (error) {
      this.logger.error(
        { err: error, path: this.path },
        "catalogue reload refused; the previous catalogue stays in force",
      );
      return false;
    }
  }
}
