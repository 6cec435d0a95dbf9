import { invalidRequest } from "@gateway/platform";

/**
 * The bytes one request's image downloads may bring in together, counted as they arrive
 * across its parallel fetches, so many URLs cannot add up to more than one request should hold.
 */
export class FetchBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get remaining(): number {
    return Math.max(0, this.maxBytes - this.used);
  }

  /** Counts bytes that arrived; past the cap, the request is the client's 400. */
  add(bytes: number): void {
    this.used += bytes;
    if (this.used > this.maxBytes) throw this.exceeded();
  }

  exceeded() {
    return invalidRequest(
      `Could not use the image URLs: together the images are larger than ${this.maxBytes} bytes.`,
      "messages",
      "invalid_image_url",
    );
  }
}
