/**
 * The soak's traffic: every kind at once, each at a fixed rate (open loop: a slow answer does not slow the sending,
 * up to IN_FLIGHT_MAX a kind), spread over the API processes, each request recorded as `Sent` for the report and the
 * books. Events carry a marker (`soak_id`, unique per submission) so that the books can find what was stored.
 */
import type { Random } from './random.js';
import type { RequestKind, Sent } from './record.js';
import type { Customer, SoakTenant } from './setup.js';

/** Requests a second, by kind: enough to keep two cores busy beside the service's own work, not to saturate them. */
export const RATES: Record<Exclude<RequestKind, 'rules' | 'simulation'>, number> = {
  v1: 12,
  v1_hot: 4,
  v1_async: 3,
  v2: 1,
  debit: 2,
  reversal: 1,
  perform: 0.5,
};
const RULES_EVERY_MS = 15_000;
const SIMULATION_EVERY_MS = 60_000;
const IN_FLIGHT_MAX = 40;
const TIMEOUT_MS = 20_000;
const EVENT_NAMES = ['visit', 'visit', 'purchase', 'share', 'login'];
const DAY_MS = 86_400_000;

export class Traffic {
  readonly sent: Sent[] = [];
  /** Simulations started (their ids), with the range they were asked for. */
  readonly simulations: Array<{ id: number; from: string; to: string }> = [];
  /** Submissions that were sent when their kind already had IN_FLIGHT_MAX unanswered: not sent. */
  skipped = 0;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Map<string, number>();
  private readonly pending = new Set<Promise<void>>();
  /** transaction ids answered 2xx, by customer: repeats and reversals pick from them. */
  private readonly used: Array<{ customer: Customer; tx: string; kind: RequestKind }> = [];
  private readonly reversed: Array<{ customer: Customer; tx: string }> = [];
  private seq = 0;
  private apiTurn = 0;
  private neverBehaviorId: number | null = null;

  constructor(
    private readonly apiUrls: string[],
    private readonly tenant: SoakTenant,
    private readonly random: Random,
    private readonly log: (line: string) => void,
  ) {}

  start(): void {
    const every = (ms: number, kind: string, fire: () => Promise<void>) => this.timers.push(setInterval(() => this.fire(kind, fire), ms));
    every(1000 / RATES.v1, 'v1', () => this.v1('v1', this.random.pick(this.tenant.syncCustomers)));
    every(1000 / RATES.v1_hot, 'v1_hot', () => this.v1('v1_hot', this.random.pick(this.tenant.hot)));
    every(1000 / RATES.v1_async, 'v1_async', () => this.v1('v1_async', this.random.pick(this.tenant.queuedCustomers)));
    every(1000 / RATES.v2, 'v2', () => this.v2());
    every(1000 / RATES.debit, 'debit', () => this.debit());
    every(1000 / RATES.reversal, 'reversal', () => this.reversal());
    every(1000 / RATES.perform, 'perform', () => this.perform());
    every(RULES_EVERY_MS, 'rules', () => this.rules());
    every(SIMULATION_EVERY_MS, 'simulation', () => this.simulation());
  }

  /** Stops sending; resolves when every request sent has its answer (or has failed). */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private fire(kind: string, send: () => Promise<void>): void {
    const now = this.inFlight.get(kind) ?? 0;
    if (now >= IN_FLIGHT_MAX) {
      this.skipped += 1;
      return;
    }
    this.inFlight.set(kind, now + 1);
    const run = send()
      .catch((error: unknown) => this.log(`traffic ${kind}: ${String(error)}`))
      .finally(() => {
        this.inFlight.set(kind, (this.inFlight.get(kind) ?? 1) - 1);
        this.pending.delete(run);
      });
    this.pending.add(run);
  }

  private next(prefix: string): string {
    this.seq += 1;
    return `${prefix}-${this.seq.toString(36)}`;
  }

  /** One request to the next API process, recorded; answers the record and the parsed body (null when none). */
  private async request(kind: RequestKind, method: string, path: string, body: unknown, record: Partial<Sent> = {}): Promise<{ sent: Sent; body: Record<string, unknown> | null }> {
    const api = this.apiTurn++ % this.apiUrls.length;
    const at = Date.now();
    const sent: Sent = { kind, at, ms: 0, status: 0, api, ...record };
    let parsed: Record<string, unknown> | null = null;
    try {
      const res = await fetch(`${this.apiUrls[api]}${path}`, {
        method,
        headers: { authorization: this.tenant.auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      sent.status = res.status;
      const text = await res.text();
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : null;
      const code = (parsed?.errors as { code?: string } | undefined)?.code;
      if (code) sent.code = code;
    } catch {
      sent.status = 0; // refused, reset or timed out: no answer
    }
    sent.ms = Date.now() - at;
    this.sent.push(sent);
    return { sent, body: parsed };
  }

  private get base(): string {
    return `/priv/v1/apps/${this.tenant.key}`;
  }

  /** A V1 submission of one event; half carry a transaction id; one in twenty repeats a used one (409 expected). */
  private async v1(kind: 'v1' | 'v1_hot' | 'v1_async', customer: Customer): Promise<void> {
    const repeat = this.used.length > 0 && this.random.chance(0.05) ? this.random.pick(this.used.filter((u) => u.customer === customer).slice(-20)) : undefined;
    const tx = repeat?.tx ?? (this.random.chance(0.5) ? this.next('tx') : undefined);
    const marker = this.next('m');
    const name = this.random.pick(EVENT_NAMES);
    const body = { events: { [name]: [{ soak_id: marker }] }, ...(tx ? { transaction_id: tx } : {}) };
    const query = kind === 'v1_async' ? '?async=true' : '';
    const { sent } = await this.request(kind, 'POST', `${this.base}/users/${customer.id}/events${query}`, body, {
      customerId: customer.id,
      marker,
      instances: 1,
      events: [{ name, customerId: customer.id }],
      ...(tx ? { transactionId: tx } : {}),
      ...(repeat ? { repeat: true } : {}),
    });
    if (tx && !repeat && sent.status >= 200 && sent.status < 300) this.used.push({ customer, tx, kind });
  }

  /** A V2 batch of 10 to 30 events of the queued customers, one marker for the batch; some events carry their own transaction id. */
  private async v2(): Promise<void> {
    const marker = this.next('m');
    const events = Array.from({ length: this.random.int(10, 30) }, () => ({
      name: this.random.pick(EVENT_NAMES),
      user_id: this.random.pick(this.tenant.queuedCustomers).id,
      context: { soak_id: marker },
      ...(this.random.chance(0.2) ? { transaction_id: this.next('tx2') } : {}),
    }));
    await this.request('v2', 'POST', `/priv/v2/apps/${this.tenant.key}/events`, { events }, { marker, instances: events.length, events: events.map((e) => ({ name: e.name, customerId: e.user_id })) });
  }

  /** A debit of 1 to 150 points (some more than the balance: 422), each with a transaction id of its own. */
  private async debit(): Promise<void> {
    const customer = this.random.pick([...this.tenant.syncCustomers, ...this.tenant.hot]);
    const points = this.random.int(1, 150);
    const tx = this.next('debit');
    await this.request('debit', 'POST', `${this.base}/users/${customer.id}/points/debits`, { debit: { points, reason: 'soak', transaction_id: tx } }, { customerId: customer.id, transactionId: tx, points });
  }

  /** A reversal of a submission answered 2xx (async ones may still be queued: 409); one in ten reverses one again (409). */
  private async reversal(): Promise<void> {
    const again = this.reversed.length > 0 && this.random.chance(0.1);
    const target = again ? this.random.pick(this.reversed) : this.used.length > 0 ? this.used.splice(this.random.int(Math.max(0, this.used.length - 200), this.used.length - 1), 1)[0] : undefined;
    if (!target) return;
    const { sent } = await this.request('reversal', 'POST', `${this.base}/users/${target.customer.id}/events/reversals`, { reversal: { transaction_id: target.tx, reason: 'soak' } }, {
      customerId: target.customer.id,
      transactionId: target.tx,
      ...(again ? { repeat: true } : {}),
    });
    if (!again && sent.status === 200) this.reversed.push({ customer: target.customer, tx: target.tx });
  }

  /** Completes the Perform campaign for a customer (a second time: 422). */
  private async perform(): Promise<void> {
    const customer = this.random.pick(this.tenant.syncCustomers);
    const tx = this.next('perform');
    await this.request('perform', 'POST', `/priv/v2/apps/${this.tenant.key}/users/${customer.id}/campaigns/${this.tenant.performId}/perform`, { domain: 'complete_campaign', transaction_id: tx }, {
      customerId: customer.id,
      transactionId: tx,
    });
  }

  /**
   * Rules changed under load, keeping their meaning: a behavior on an event nobody sends is added to the Everyday
   * campaign, then removed (every change invalidates the compiled rules of every process).
   */
  private async rules(): Promise<void> {
    if (this.neverBehaviorId === null) {
      const name = this.next('never');
      const behavior = { name, points: 1, data: {}, goal_groups: [{ goals: [{ achievement: { name, event_count: 1 } }] }] };
      const { body } = await this.request('rules', 'POST', `${this.base}/management/campaigns/${this.tenant.everydayId}/behaviors/_batch`, { behaviors: [behavior] });
      const created = (body?.behaviors as Array<{ id: number }> | undefined)?.[0];
      this.neverBehaviorId = created?.id ?? null;
    } else {
      const { sent } = await this.request('rules', 'DELETE', `${this.base}/management/behaviors/${this.neverBehaviorId}`, undefined);
      if (sent.status < 500 && sent.status !== 0) this.neverBehaviorId = null;
    }
  }

  /** A simulation of the Everyday campaign over the last three days, to now. */
  private async simulation(): Promise<void> {
    const to = new Date().toISOString();
    const from = new Date(Date.now() - 3 * DAY_MS).toISOString();
    const { body } = await this.request('simulation', 'POST', `${this.base}/management/campaigns/${this.tenant.everydayId}/simulations`, { simulation: { from, to } });
    const id = (body?.simulation as { id?: number } | undefined)?.id;
    if (id !== undefined) this.simulations.push({ id, from, to });
  }
}
