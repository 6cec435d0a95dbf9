import { context, propagation } from "@opentelemetry/api";

// A baggage entry, so the id travels with the trace context over gRPC to router and video.
const requestIdEntry = "gateway.request_id";

/** Runs `work` (and everything it starts) with `requestId` as the current request's id. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  const baggage = (propagation.getActiveBaggage() ?? propagation.createBaggage()).setEntry(requestIdEntry, {
    value: requestId,
  });
  return context.with(propagation.setBaggage(context.active(), baggage), work);
}

/** The id of the request whose work is running, where one is known. */
export function currentRequestId(): string | undefined {
  return propagation.getActiveBaggage()?.getEntry(requestIdEntry)?.value;
}
