import type { Position } from "./cursor.js";

/** What a list of the account API asks for, already validated. */
export interface ListFilter {
  from?: Date | undefined;
  to?: Date | undefined;
  model?: string | undefined;
  keyId?: string | undefined;
  /** Rows strictly after this position in newest-first order. */
  after?: Position | undefined;
  limit: number;
}
