import { generatePaymentCredentials, type PaymentCredentials } from "./credentials.js";
import { PaymentOrderStore } from "./orders.js";

export interface DeliveryRecord {
  provider: "wechat_pay" | "alipay";
  out_trade_no: string;
  fault: string | null;
  attempt: number;
  at: string;
  /** The merchant's HTTP status, or null when it could not be reached. */
  status: number | null;
  /** The start of the merchant's answer, or why it could not be reached. */
  answer: string;
  accepted: boolean;
}

const keptDeliveries = 500;

/** The simulated payment providers: their keys, orders and the notifications they sent. */
export class PaymentsState {
  /** Made in the background at start, so starting the simulator does not wait for five RSA keys. */
  readonly credentials: Promise<PaymentCredentials> = generatePaymentCredentials();
  readonly orders = new PaymentOrderStore();
  readonly deliveries: DeliveryRecord[] = [];
  private readonly stopping = new AbortController();

  constructor() {
    // Handlers awaiting the keys see a failure themselves; this only keeps it from being unhandled.
    this.credentials.catch(() => {});
  }

  /** Aborted when the simulator closes, so no pending notification keeps the process alive. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  record(delivery: DeliveryRecord): void {
    this.deliveries.push(delivery);
    if (this.deliveries.length > keptDeliveries) this.deliveries.splice(0, this.deliveries.length - keptDeliveries);
  }

  stop(): void {
    this.stopping.abort();
  }
}
