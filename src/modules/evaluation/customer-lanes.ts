import { AppError } from '../../common/errors/app-error.js';
import { currentTurn } from '../../common/auth/current-turn.js';

/**
 * Work for one customer runs one at a time in this process, in arrival order, and waits for its turn *before* it takes
 * a database connection: a burst of events for one hot customer holds at most one pooled connection (the one whose
 * turn it is), never every connection while the rest wait for the customer's row lock. A turn waited for longer than
 * `maxWaitMs` is refused with 503 service_unavailable naming the cause, and the lane goes on with the next.
 */
export class CustomerLanes {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly maxWaitMs: number) {}

  /** How many customers have work running or waiting (for tests and metrics). */
  get busy(): number {
    return this.tails.size;
  }

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    // The next arrival waits for this one, and through it for every earlier one (even when this one gave up waiting).
    const tail = previous ? previous.then(() => mine) : mine;
    this.tails.set(key, tail);
    // The lane is forgotten once everything in it is done (not when this one gives up: earlier work may still run).
    void tail.then(() => this.tails.get(key) === tail && this.tails.delete(key));
    try {
      if (previous) await this.waitFor(previous);
      return await work();
    } finally {
      release();
    }
  }

  /**
   * Waits for the customer's earlier work; the request's turn (OrganizationTurns) is given back meanwhile, so that the
   * organization's other customers are served, and taken again once the lane is this one's. A wait that times out
   * keeps it given back: the request only answers its error.
   */
  private async waitFor(previous: Promise<void>): Promise<void> {
    const turn = currentTurn();
    turn?.pause();
    await this.turn(previous);
    await turn?.resume();
  }

  private async turn(previous: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new AppError('service_unavailable', `too many events for this customer at once: its earlier events were not done within ${this.maxWaitMs / 1000} s; retry later`)),
        this.maxWaitMs,
      );
    });
    try {
      await Promise.race([previous, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
