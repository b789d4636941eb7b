import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logging/logger.js';
import { checksOf, findStaleValues, upgradeStaleValues, type ArgumentKind, type ArgumentsByName, type LeftReason, type StaleObjectType, type StaleValue, type StoredRulesObject } from '../registry/index.js';
import { StaleArgumentsRepository } from './stale-arguments.repository.js';
import type { ErrorDetail } from '../../common/errors/app-error.js';

/** How many behaviors, campaigns and creative groups (each) naming an extension the listing reads for an organization. */
export const LISTING_SCAN_ROWS = 5_000;
/** How many stale values the listing answers per extension (`count` counts them all). */
export const LISTED_VALUES = 20;
/** How many objects of each type naming an extension the boot report reads, across organizations. */
export const BOOT_SCAN_ROWS = 2_000;
/** The boot report's statement may take this long (it is given up past it, and boot goes on). */
export const BOOT_STATEMENT_TIMEOUT_MS = 3_000;
/** Examples per extension in the boot report's line. */
const BOOT_EXAMPLES = 3;
/** Objects read per statement by extensions:upgrade (each type), walking every organization. */
const UPGRADE_PAGE_ROWS = 500;

/** An extension's stale values: what the listing answers under `stale`. */
export interface StaleSummary {
  count: number;
  values: StaleValue[];
}

/** `<kind>:<name>`, as extension failures are keyed (`reward_kind:bonus`). */
export type StaleKey = `${ArgumentKind}:${string}`;

const names = (args: ArgumentsByName) => ({ kinds: [...args.rewards.keys()], operators: [...args.operators.keys()] });
const hasAny = (args: ArgumentsByName) => args.rewards.size + args.operators.size > 0;

/** Stale values grouped by extension, in the order found, `values` cut at `keep`. */
function byExtension(stale: readonly StaleValue[], keep: number): Map<StaleKey, StaleSummary> {
  const out = new Map<StaleKey, StaleSummary>();
  for (const value of stale) {
    const key: StaleKey = `${value.kind}:${value.extension}`;
    const summary = out.get(key) ?? { count: 0, values: [] };
    summary.count += 1;
    if (summary.values.length < keep) summary.values.push(value);
    out.set(key, summary);
  }
  return out;
}

/**
 * Stored extension arguments that their extension's current class refuses (decision 0027), as the API reports them: per
 * organization for `GET .../management/extensions`, and once at boot across organizations in a warning line. Both read
 * a bounded number of objects naming an extension (StaleArgumentsRepository) and check them with the registry's
 * write-time checks (findStaleValues); with no extension loaded they read nothing.
 */
export class StaleArguments {
  constructor(
    private readonly db: DataSource,
    private readonly args: () => ArgumentsByName,
    private readonly repository = new StaleArgumentsRepository(),
  ) {}

  /** The organization's stale values by `<kind>:<name>` (among the first LISTING_SCAN_ROWS objects of each type naming an extension). */
  async of(organizationId: number): Promise<Map<StaleKey, StaleSummary>> {
    const args = this.args();
    if (!hasAny(args)) return new Map();
    const objects = await this.repository.candidates(this.db, { ...names(args), limit: LISTING_SCAN_ROWS, organizationId });
    return byExtension(findStaleValues(objects, checksOf(args)), LISTED_VALUES);
  }

  /**
   * The boot report: one warning line when stored values no longer validate, with each extension's count across
   * organizations and a few examples; nothing when there are none or no extension is loaded. One statement, at most
   * BOOT_SCAN_ROWS objects of each type, under a statement timeout of BOOT_STATEMENT_TIMEOUT_MS: it never holds boot up
   * for longer, and a failure is a warning of its own.
   */
  async reportAtBoot(logger: Logger): Promise<void> {
    const args = this.args();
    if (!hasAny(args)) return;
    let objects: StoredRulesObject[];
    try {
      objects = await this.db.transaction(async (em) => {
        await em.query(`SET LOCAL statement_timeout = ${BOOT_STATEMENT_TIMEOUT_MS}`);
        return this.repository.candidates(em, { ...names(args), limit: BOOT_SCAN_ROWS });
      });
    } catch (error) {
      logger.warn({ err: { type: (error as Error).name, message: (error as Error).message } }, 'stored extension arguments not checked at boot');
      return;
    }
    const stale = findStaleValues(objects, checksOf(args));
    if (stale.length === 0) return;
    const read = (type: StaleObjectType) => objects.filter((o) => o.object_type === type).length;
    const scanned = { behavior: read('behavior'), campaign: read('campaign'), creative_group: read('creative_group') };
    const extensions = [...byExtension(stale, BOOT_EXAMPLES)].map(([key, { count, values }]) => {
      const [kind, extension] = key.split(':') as [ArgumentKind, string];
      const source = (kind === 'reward_kind' ? args.rewards : args.operators).get(extension)?.source;
      const organizations = new Set(stale.filter((s) => s.kind === kind && s.extension === extension).map((s) => s.organization_id)).size;
      const examples = values.map(({ organization_id, object_type, object_id, field, problems }) => ({ organization_id, object_type, object_id, field, problems }));
      return { kind, extension, source, count, organizations, examples };
    });
    logger.warn(
      { stale_arguments: extensions, scanned, complete: Object.values(scanned).every((n) => n < BOOT_SCAN_ROWS) },
      'stored extension arguments no longer valid: listed per organization by GET .../management/extensions; npm run cli -- extensions:upgrade migrates them',
    );
  }
}

/** A value extensions:upgrade upgraded (or, on a dry run, would upgrade). */
export interface UpgradedValue {
  organization_id: number;
  object_type: StaleObjectType;
  object_id: number;
  field: string;
  extension: string;
  before: unknown;
  after: unknown;
}

/** A value that stays stale, and why: its extension has no upgrade, the upgrade threw, or its result is refused too. */
export interface LeftValue {
  organization_id: number;
  object_type: StaleObjectType;
  object_id: number;
  field: string;
  extension: string;
  reason: LeftReason;
  problems: ErrorDetail[];
}

export interface UpgradeReport {
  dry_run: boolean;
  upgraded: UpgradedValue[];
  stale: LeftValue[];
}

/**
 * `npm run cli -- extensions:upgrade [--dry-run]` (decision 0027): walks every organization's behaviors, campaigns and
 * creative groups naming an extension, in pages; for each object holding stale values, in a transaction of its own with
 * the object locked and read again, has each value's extension upgrade it (upgradeStaleValues), and writes the object
 * when one was upgraded, with an audit entry and the rules version bumped. A dry run reads and answers the same, and
 * writes nothing.
 */
export async function upgradeStaleArguments(
  db: DataSource,
  args: ArgumentsByName,
  options: { dryRun: boolean; clock: Clock; repository?: StaleArgumentsRepository; pageRows?: number },
): Promise<UpgradeReport> {
  const report: UpgradeReport = { dry_run: options.dryRun, upgraded: [], stale: [] };
  if (!hasAny(args)) return report;
  const repository = options.repository ?? new StaleArgumentsRepository();
  const limit = options.pageRows ?? UPGRADE_PAGE_ROWS;
  const checks = checksOf(args);
  const record = (outcome: ReturnType<typeof upgradeStaleValues>) => {
    const at = ({ organization_id, object_type, object_id, field, extension }: StaleValue) => ({ organization_id, object_type, object_id, field, extension });
    for (const { value, after } of outcome.upgraded) report.upgraded.push({ ...at(value), before: value.value, after });
    for (const { value, reason, problems } of outcome.left) report.stale.push({ ...at(value), reason, problems });
  };
  const after: Partial<Record<StaleObjectType, number>> = {};
  let types: StaleObjectType[] = ['behavior', 'campaign', 'creative_group'];
  while (types.length > 0) {
    const page = await repository.candidates(db, { ...names(args), limit, after, types });
    for (const type of types) {
      const ids = page.filter((o) => o.object_type === type).map((o) => o.object_id);
      if (ids.length) after[type] = Math.max(...ids);
      if (ids.length < limit) types = types.filter((t) => t !== type);
    }
    for (const object of page) {
      const stale = findStaleValues([object], checks);
      if (stale.length === 0) continue;
      const planned = upgradeStaleValues(object, stale, args, new Date(options.clock.now()).toISOString());
      // A dry run answers what it read; so does a run with nothing to write for the object (no lock taken).
      if (options.dryRun || planned.columns === null) {
        record(planned);
        continue;
      }
      const outcome = await db.transaction(async (em) => {
        const locked = await repository.lock(em, object.object_type, object.object_id);
        if (!locked) return null; // deleted since it was read
        const upgraded = upgradeStaleValues(locked, findStaleValues([locked], checks), args, new Date(options.clock.now()).toISOString());
        if (upgraded.columns) await repository.write(em, locked, upgraded.columns);
        return upgraded;
      });
      if (outcome) record(outcome);
    }
  }
  return report;
}
