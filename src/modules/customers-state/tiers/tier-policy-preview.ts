import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type QueryRunner } from 'typeorm';
import { CLOCK, type Clock } from '../../../common/clock.js';
import type { Queryable } from '../../../common/database/unit-of-work.js';
import { tierPolicy } from '../../../database/entities/tier-policy.js';
import { customerTierStanding, tierStanding, type CompiledRules, type RankedTier } from '../../../engine/index.js';
import { RulesCacheService } from '../../campaigns/index.js';
import { storedTierPolicy, type TierPolicyInput } from '../../tenancy/index.js';
import type { TierPolicyPreviewResponse } from './dto/tier-policy-preview.dto.js';
import { MonthCalendar, monthFacts, PolicyTiers } from './policy-tiers.js';
import {
  customerBatch,
  declareScan,
  fetchScan,
  monthWindow,
  organizationScale,
  organizationTiers,
  type MonthWindow,
  type PreviewCustomerRow,
} from './tier-policy-preview.repository.js';

/** Customers read at a time. */
export const PREVIEW_BATCH = 10_000;
/** Customers computed between two turns of the event loop. */
const SLICE = 1_000;
/** The one-pass read from this share of all customers on, and this many (below it, the batches cost less). */
const SCAN_SHARE = 0.05;
const SCAN_MIN_CUSTOMERS = 50_000;
/** Memory the one-pass read may group the ledger in before it spills to disk (its transaction only). */
const SCAN_WORK_MEM = '512MB';
/** Months of the window whose starts the credits are searched in, before and after now. */
const WINDOW_BEFORE_MONTHS = 12 * 12;
const WINDOW_AFTER_MONTHS = 12;

export type PreviewStrategy = 'auto' | 'batches' | 'scan';

interface TierRef {
  id: number;
  name: string;
  minPoints: number;
}

/** Counts by tier key (a tier's name, or `none`), and the moves. */
class Tally {
  readonly tiers = new Map<string, { now: number; under_policy: number }>();
  readonly moves = { up: 0, down: 0, same: 0 };
  customers = 0;

  constructor(live: readonly RankedTier[]) {
    this.tiers.set('none', { now: 0, under_policy: 0 });
    for (const t of live) this.tiers.set(t.name, { now: 0, under_policy: 0 });
  }

  add(now: TierRef | null, under: TierRef | null): void {
    this.customers += 1;
    this.counts(now).now += 1;
    this.counts(under).under_policy += 1;
    const from = now?.minPoints ?? -1;
    const to = under?.minPoints ?? -1;
    if (now?.id === under?.id || from === to) this.moves.same += 1;
    else if (to > from) this.moves.up += 1;
    else this.moves.down += 1;
  }

  private counts(tier: TierRef | null) {
    const key = tier?.name ?? 'none';
    let counts = this.tiers.get(key);
    if (!counts) this.tiers.set(key, (counts = { now: 0, under_policy: 0 }));
    return counts;
  }
}

/**
 * The tier policy preview (contract §17): each customer's tier now (as reads answer it) against the tier the proposed
 * policy would give now had it always been in force (no policy-change floor). Reads one snapshot (REPEATABLE READ,
 * READ ONLY: nothing is written), 10,000 customers at a time, the next ones read while these are computed: by keyset
 * pages for most organizations, in one pass over the ledger (two cursors, two cores) for one that holds a good part of
 * it (tier-policy-preview.repository.ts says why).
 */
@Injectable()
export class TierPolicyPreview {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly rules: RulesCacheService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async preview(organizationId: number, input: TierPolicyInput, strategy: PreviewStrategy = 'auto'): Promise<TierPolicyPreviewResponse> {
    const now = this.clock.now();
    const rules = await this.rules.get(organizationId);
    const { timeZone, policy: current } = rules.tierRules;
    const proposed = tierPolicy(storedTierPolicy(input));
    const tally = new Tally(rules.rankedTiers);
    await this.reading(async (runner, more) => {
      const window = await monthWindow(runner, timeZone, new Date(monthsFrom(now, -WINDOW_BEFORE_MONTHS)), new Date(monthsFrom(now, WINDOW_AFTER_MONTHS)));
      const calendar = new MonthCalendar(timeZone, window);
      const tiers = new Map((await organizationTiers(runner, organizationId)).map((t) => [t.id, { id: t.id, name: t.name, minPoints: t.min_points }]));
      const live = (tierId: number | null) => (tierId === null ? null : (tiers.get(tierId) ?? null));
      const under = new PolicyTiers(rules.rankedTiers, proposed, calendar, timeZone, now, (facts) => tierStanding({ policy: proposed, tiers: rules.rankedTiers, facts, now, timeZone }).tierId);
      const nowTier = current.basis === 'period' ? this.currentPeriod(rules, calendar, now) : null;
      const compute = async (rows: PreviewCustomerRow[]) => {
        for (let from = 0; from < rows.length; from += SLICE) {
          // The event loop is given back between slices: other requests of the process are served meanwhile.
          if (from > 0) await new Promise((resolve) => setImmediate(resolve));
          for (const row of rows.slice(from, from + SLICE)) {
            const facts = monthFacts(row);
            const before = nowTier ? live(nowTier.tierOf(facts, row.tier_floor_id)) : lifetimeTier(rules, tiers, row);
            tally.add(before, live(under.tierOf(facts)));
          }
        }
      };
      const scale = await organizationScale(runner, organizationId);
      const scan = strategy === 'scan' || (strategy === 'auto' && scale.customers >= SCAN_MIN_CUSTOMERS && scale.customers >= SCAN_SHARE * scale.allCustomers);
      if (!scan) return readInBatches(runner, window, organizationId, scale.divisionIds, compute);
      const second = await more();
      return readInOnePass([runner, second], window, organizationId, compute);
    });
    return { status: 'ok', as_of: new Date(now).toISOString(), customers: tally.customers, tiers: Object.fromEntries(tally.tiers), moves: tally.moves };
  }

  /**
   * Runs `read` in a READ ONLY, REPEATABLE READ transaction (one snapshot: the counts are those of one instant), with
   * more connections on the same snapshot when it asks for them (pg_export_snapshot); every transaction ends with it.
   */
  private async reading(read: (runner: QueryRunner, more: () => Promise<QueryRunner>) => Promise<void>): Promise<void> {
    const runners: QueryRunner[] = [];
    const open = async (snapshot: string | null) => {
      const runner = this.db.createQueryRunner();
      runners.push(runner);
      await runner.connect();
      await runner.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      if (snapshot) await runner.query(`SET TRANSACTION SNAPSHOT '${snapshot.replace(/'/g, "''")}'`);
      return runner;
    };
    let ended = false;
    try {
      const first = await open(null);
      let snapshot: string | null = null;
      await read(first, async () => {
        snapshot ??= ((await first.query('SELECT pg_export_snapshot() AS id')) as Array<{ id: string }>)[0].id;
        return open(snapshot);
      });
      for (const runner of runners) await runner.query('COMMIT');
      ended = true;
    } finally {
      for (const runner of runners) {
        if (!ended) await runner.query('ROLLBACK').catch(() => undefined);
        await runner.release();
      }
    }
  }

  /** The tier reads answer under the current period policy: the standing with the customer's policy-change floor. */
  private currentPeriod(rules: CompiledRules, calendar: MonthCalendar, now: number): PolicyTiers {
    const { policy, timeZone, policyChangedAt } = rules.tierRules;
    return new PolicyTiers(
      rules.rankedTiers,
      policy,
      calendar,
      timeZone,
      now,
      (facts, floorTierId) => customerTierStanding(rules, { tierFacts: facts, tierFloorId: floorTierId }, now).tierId,
      policyChangedAt !== null,
    );
  }
}

/**
 * The tier reads answer under lifetime (CustomersService.effectiveTier): the stored one (a deleted tier too), or the
 * highest live tier the lifetime points reach if it ranks higher.
 */
function lifetimeTier(rules: CompiledRules, tiers: Map<number, TierRef>, row: PreviewCustomerRow): TierRef | null {
  const stored = row.tier_id === null ? null : (tiers.get(row.tier_id) ?? null);
  const points = Number(row.lifetime_points);
  let earned: RankedTier | null = null;
  for (const t of rules.rankedTiers) if (t.minPoints <= points) earned = t;
  return earned && (!stored || earned.minPoints > stored.minPoints) ? { id: earned.id, name: earned.name, minPoints: earned.minPoints } : stored;
}

/** The instant `months` calendar months (UTC) from now. */
function monthsFrom(now: number, months: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1);
}

/** A read asked for ahead: if the computation before it throws, its failure is not left unhandled (it is awaited otherwise). */
function ahead<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** Keyset pages of each division's customers; the next page asked for before this one is computed. */
async function readInBatches(db: Queryable, window: MonthWindow, organizationId: number, divisionIds: number[], compute: (rows: PreviewCustomerRow[]) => Promise<void>): Promise<void> {
  for (const divisionId of divisionIds) {
    let next: Promise<PreviewCustomerRow[]> | null = ahead(customerBatch(db, window, organizationId, divisionId, null, PREVIEW_BATCH));
    while (next) {
      const rows: PreviewCustomerRow[] = await next;
      next = rows.length === PREVIEW_BATCH ? ahead(customerBatch(db, window, organizationId, divisionId, rows[rows.length - 1].id, PREVIEW_BATCH)) : null;
      await compute(rows);
    }
  }
}

/**
 * One pass through a cursor per part of the customers (a range of ids each, on connections sharing one snapshot: the
 * ledger grouped on as many cores), fetched 10,000 at a time; each part's next fetch asked for before its rows are
 * computed.
 */
async function readInOnePass(runners: Queryable[], window: MonthWindow, organizationId: number, compute: (rows: PreviewCustomerRow[]) => Promise<void>): Promise<void> {
  const cursor = 'tier_policy_preview';
  const parts = uuidRanges(runners.length);
  for (const [i, db] of runners.entries()) await declareScan(db, cursor, window, organizationId, SCAN_WORK_MEM, parts[i]);
  const next: Array<Promise<PreviewCustomerRow[]> | null> = runners.map((db) => ahead(fetchScan(db, cursor, PREVIEW_BATCH)));
  while (next.some((n) => n !== null)) {
    for (const [i, db] of runners.entries()) {
      if (!next[i]) continue;
      const rows: PreviewCustomerRow[] = await next[i]!;
      next[i] = rows.length === PREVIEW_BATCH ? ahead(fetchScan(db, cursor, PREVIEW_BATCH)) : null;
      await compute(rows);
    }
  }
  for (const db of runners) await db.query(`CLOSE ${cursor}`);
}

/** `parts` ranges of the uuid space, as [from, to) (null: unbounded); customer ids are random (version 4) uuids. */
function uuidRanges(parts: number): Array<{ from: string | null; to: string | null }> {
  const bound = (i: number) => `${Math.floor((i * 0x1_0000_0000) / parts).toString(16).padStart(8, '0')}-0000-0000-0000-000000000000`;
  return Array.from({ length: parts }, (_, i) => ({ from: i === 0 ? null : bound(i), to: i === parts - 1 ? null : bound(i + 1) }));
}
