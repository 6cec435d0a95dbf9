/**
 * The service's notion of now. Every time the service stores or compares (creation, leases,
 * time-outs, the 24-hour expiry, link expiry) comes from here and never from the database's
 * now(), so tests can move one process's clock forward and watch a day pass.
 */
export class Clock {
  constructor(private offsetMs = 0) {}

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  nowMs(): number {
    return Date.now() + this.offsetMs;
  }

  get offset(): number {
    return this.offsetMs;
  }

  setOffset(offsetMs: number): void {
    this.offsetMs = offsetMs;
  }
}
