/** What the soak's traffic records of each request: the report counts them, the books check them. */
export type RequestKind = 'v1' | 'v1_hot' | 'v1_async' | 'v2' | 'debit' | 'reversal' | 'perform' | 'rules' | 'simulation';

export interface Sent {
  kind: RequestKind;
  /** Epoch ms when sent. */
  at: number;
  /** Until answered (or failed). */
  ms: number;
  /** HTTP status; 0 when no answer came (refused, reset, timed out). */
  status: number;
  /** Which API process it went to. */
  api: number;
  /** `errors.code` of an error's body. */
  code?: string;
  customerId?: string;
  /** Event submissions: the `soak_id` attribute of each of its events (unique per submission, shared by its instances). */
  marker?: string;
  /** Event instances the submission carried. */
  instances?: number;
  /** Event submissions: each instance's name and customer, in the order sent (the soak's model reads them). */
  events?: Array<{ name: string; customerId: string }>;
  /** The transaction_id it carried (events, debits, perform), or the one it reversed (reversals). */
  transactionId?: string;
  /** A repeat of a transaction_id already answered 2xx: its 409 is expected and must store nothing. */
  repeat?: boolean;
  /** Debits: the points asked. */
  points?: number;
}
