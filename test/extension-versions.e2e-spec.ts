import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { jest } from '@jest/globals';
import { Module, type INestApplication } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsNumber, IsObject, Max, Min, ValidateNested } from 'class-validator';
import { LOGGER, type Logger } from '../src/common/logging/logger.js';
import { loadConfig } from '../src/config/config.js';
import { CriteriaOperator, CriteriaOperatorHandler, RewardKind, RewardKindHandler, type RewardContext } from '../src/extension-api/index.js';
import { buildTestApp } from '../src/extension-api/testing-core.js';
import { ExtensionsController } from '../src/modules/extensions/extensions.controller.js';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { api, createTenant, type TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';

/*
 * Issue #45 item 4: an extension whose argument classes changed between two versions. Version 1 writes the rules; the
 * API started again with version 2 on the same database (a database of this file's own: the boot report and the
 * upgrade read every organization's rules) reports the values written under version 1 at boot and in the listing,
 * takes them back unchanged in a behavior's PUT, and `extensions:upgrade` migrates them through version 2's upgrade().
 */

jest.setTimeout(120_000);

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const DAY = 86_400_000;

// Version 1: a reward giving `points` (at most 10,000), an operator whose value is a number.
class BonusV1Args {
  @ApiProperty({ example: 10, type: 'integer', minimum: 1, maximum: 10_000 }) @IsInt() @Min(1) @Max(10_000) points!: number;
}

@RewardKind({ name: 'bonus', description: 'Points given (version 1)', args: BonusV1Args })
class BonusV1 extends RewardKindHandler<BonusV1Args> {
  apply(ctx: RewardContext, args: BonusV1Args): void {
    ctx.credit(args.points);
  }
  override points(args: BonusV1Args): number {
    return args.points;
  }
}

class MinOfV1Value {
  @ApiProperty({ example: 3 }) @IsNumber() value!: number;
}

@CriteriaOperator({ name: 'min_of', description: 'At least the value (version 1: a number)', value: MinOfV1Value })
class MinOfV1 extends CriteriaOperatorHandler {
  test(actual: unknown, expected: unknown): boolean {
    return typeof actual === 'number' && typeof expected === 'number' && actual >= expected;
  }
}

@Module({ providers: [BonusV1, MinOfV1] })
class VersionedModuleV1 {}

// Version 2: the reward gives `amount` (at most 1,000), the operator's value is `{ min }`; both upgrade version 1's.
class BonusArgs {
  @ApiProperty({ example: 10, type: 'integer', minimum: 1, maximum: 1000 }) @IsInt() @Min(1) @Max(1000) amount!: number;
}

@RewardKind({ name: 'bonus', description: 'Points given (version 2)', args: BonusArgs })
class Bonus extends RewardKindHandler<BonusArgs> {
  apply(ctx: RewardContext, args: BonusArgs): void {
    if (typeof args.amount === 'number') ctx.credit(args.amount);
    else ctx.note('bonus: arguments of version 1, not upgraded');
  }
  override points(args: BonusArgs): number {
    return typeof args.amount === 'number' ? args.amount : 0;
  }
  override upgrade(stored: unknown): unknown {
    const { points } = stored as { points?: unknown };
    return typeof points === 'number' ? { amount: points } : stored;
  }
}

class Minimum {
  @ApiProperty({ example: 3 }) @IsNumber() min!: number;
}

class MinOfValue {
  @ApiProperty({ type: Minimum }) @IsDefined() @IsObject() @ValidateNested() @Type(() => Minimum) value!: Minimum;
}

@CriteriaOperator({ name: 'min_of', description: 'At least the value (version 2: { min })', value: MinOfValue })
class MinOf extends CriteriaOperatorHandler {
  test(actual: unknown, expected: unknown): boolean {
    const min = (expected as { min?: unknown } | null)?.min;
    return typeof actual === 'number' && typeof min === 'number' && actual >= min;
  }
  override upgrade(stored: unknown): unknown {
    return typeof stored === 'number' ? { min: stored } : stored;
  }
}

@Module({ providers: [Bonus, MinOf] })
class VersionedModule {}

/** Version 2 as the EXTENSIONS setting loads it for the command line: plain JavaScript on the built extension API. */
const VERSION_2_JS = (extensionApi: string) => `
import { Module } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsNumber, IsObject, Max, Min, ValidateNested } from 'class-validator';
import { CriteriaOperator, CriteriaOperatorHandler, RewardKind, RewardKindHandler } from '${extensionApi}';

class BonusArgs {}
for (const decorate of [IsInt(), Min(1), Max(1000)]) decorate(BonusArgs.prototype, 'amount');
class Bonus extends RewardKindHandler {
  apply(ctx, args) { if (typeof args.amount === 'number') ctx.credit(args.amount); }
  points(args) { return typeof args.amount === 'number' ? args.amount : 0; }
  upgrade(stored) { return typeof stored?.points === 'number' ? { amount: stored.points } : stored; }
}
RewardKind({ name: 'bonus', description: 'Points given (version 2)', args: BonusArgs })(Bonus);

class Minimum {}
IsNumber()(Minimum.prototype, 'min');
class MinOfValue {}
for (const decorate of [IsDefined(), IsObject(), ValidateNested(), Type(() => Minimum)]) decorate(MinOfValue.prototype, 'value');
class MinOf extends CriteriaOperatorHandler {
  test(actual, expected) { return typeof actual === 'number' && typeof expected?.min === 'number' && actual >= expected.min; }
  upgrade(stored) { return typeof stored === 'number' ? { min: stored } : stored; }
}
CriteriaOperator({ name: 'min_of', description: 'At least the value (version 2: { min })', value: MinOfValue })(MinOf);

export class VersionedModule {}
Module({ providers: [Bonus, MinOf] })(VersionedModule);
`;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("changing an extension's arguments: stale values reported, kept on a PUT, upgraded by extensions:upgrade", () => {
  let app: INestApplication | undefined;
  let tenant: TestTenant;
  let campaignId: number;
  let groupId: number;
  const ids: Record<'visit' | 'shop' | 'big', number> = { visit: 0, shop: 0, big: 0 };
  let warn: jest.SpiedFunction<Logger['warn']>;
  let fixtureDir: string;
  let extensionsEntry: string;

  const listing = async (who = tenant) => (await api(app!, who).get('/management/extensions').expect(200)).body.extensions as Json;
  const entry = (extensions: Json, kind: 'reward_kinds' | 'criteria_operators', name: string) => (extensions[kind] as Json[]).find((e) => e.name === name)!;

  /** `npm run cli -- extensions:upgrade` as built, with version 2 loaded, on this file's database. */
  async function upgrade(...args: string[]): Promise<Json> {
    const env: NodeJS.ProcessEnv = { ...process.env, EXTENSIONS: extensionsEntry };
    delete env.NODE_OPTIONS;
    const { stdout } = await run(process.execPath, ['dist/src/cli.js', 'extensions:upgrade', ...args], { cwd: ROOT, env });
    return JSON.parse(stdout) as Json;
  }

  beforeAll(async () => {
    await useOwnDatabase('extension_versions');
    fixtureDir = join(ROOT, 'test-output', `extension-versions-${process.pid}`);
    await mkdir(fixtureDir, { recursive: true });
    extensionsEntry = `${join(fixtureDir, 'versioned.mjs')}#VersionedModule`;
    await writeFile(join(fixtureDir, 'versioned.mjs'), VERSION_2_JS(pathToFileURL(join(ROOT, 'dist/src/extension-api/index.js')).href));

    // Version 1 writes the rules: a campaign targeting with the operator, three behaviors, a creative group.
    const v1 = await createTestApp({}, [VersionedModuleV1]);
    try {
      tenant = await createTenant(v1);
      const atLeastZero = [{ field: 'user.lifetime_points', op: 'min_of', value: 0 }];
      campaignId = (await createCampaign(v1, tenant, { targeting: atLeastZero })).id;
      const goal = (name: string, criteria: unknown[] = []) => [{ goals: [{ achievement: { name, event_count: 1, criteria } }] }];
      const behaviors = [
        { name: 'Visit', data: {}, goal_groups: goal('visit'), outcome_config: [{ bonus: { points: 10 } }] },
        { name: 'Shop', data: {}, goal_groups: goal('shop', [{ field: 'basket', op: 'min_of', value: 3 }]), outcome_config: [{ points: 7 }] },
        { name: 'Big', data: {}, goal_groups: goal('big'), outcome_config: [{ bonus: { points: 5000 } }] },
      ];
      const created = (await api(v1, tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors }).expect(201)).body.behaviors as Json[];
      [ids.visit, ids.shop, ids.big] = created.map((b) => b.id as number);
      const window = { starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
      const lineItem = await api(v1, tenant).post(`/management/campaigns/${campaignId}/line_items`).send({ line_item: { name: 'Main', status: 'live', ...window } }).expect(201);
      const group = await api(v1, tenant)
        .post(`/management/line_items/${lineItem.body.line_items[0].id}/creative_groups`)
        .send({ creative_group: { name: 'Everyone', status: 'live', ...window, targeting: atLeastZero } })
        .expect(201);
      groupId = group.body.creative_groups[0].id;
      // Nothing is stale under version 1.
      const v1Listing = (await api(v1, tenant).get('/management/extensions').expect(200)).body.extensions as Json;
      expect([entry(v1Listing, 'reward_kinds', 'bonus').stale, entry(v1Listing, 'criteria_operators', 'min_of').stale]).toEqual([undefined, undefined]);
    } finally {
      await v1.close();
    }

    // Version 2 on the same database. Not checked against the served document, unlike createTestApp's: the values
    // written under version 1 are not what version 2's schemas describe, and the behaviors' answers echo them.
    app = await buildTestApp({ ...loadConfig(process.env) }, [VersionedModule]);
    warn = jest.spyOn(app.get<Logger>(LOGGER), 'warn'); // the boot report is not awaited by boot: it has not logged yet
    await app.get(ExtensionsController).bootReported();
  });

  afterAll(async () => {
    await app?.close();
    if (fixtureDir) await rm(fixtureDir, { recursive: true, force: true });
  });

  it('logs once at boot, per extension, how many stored values no longer validate and a few of them', () => {
    const lines = warn.mock.calls.filter(([, message]) => typeof message === 'string' && message.startsWith('stored extension arguments no longer valid'));
    expect(lines).toHaveLength(1);
    const [fields] = lines[0] as [Json, string];
    expect(fields).toEqual({
      stale_arguments: [
        {
          kind: 'reward_kind',
          extension: 'bonus',
          source: 'VersionedModule',
          count: 2,
          organizations: 1,
          examples: [ids.visit, ids.big].map((id) => ({
            organization_id: tenant.organizationId,
            object_type: 'behavior',
            object_id: id,
            field: 'outcome_config.0.bonus',
            problems: [
              { field: 'outcome_config.0.bonus.points', message: 'is not a known attribute' },
              { field: 'outcome_config.0.bonus.amount', message: 'must be an integer number' },
            ],
          })),
        },
        {
          kind: 'criteria_operator',
          extension: 'min_of',
          source: 'VersionedModule',
          count: 3,
          organizations: 1,
          examples: [
            { object_type: 'behavior', object_id: ids.shop, field: 'goal_groups.0.goals.0.achievement.criteria.0.value' },
            { object_type: 'campaign', object_id: campaignId, field: 'targeting.0.value' },
            { object_type: 'creative_group', object_id: groupId, field: 'targeting.0.value' },
          ].map((at) => ({ organization_id: tenant.organizationId, ...at, problems: [{ field: at.field, message: 'must be an object' }] })),
        },
      ],
      scanned: { behavior: 3, campaign: 1, creative_group: 1 },
      complete: true,
    });
  });

  it("lists each extension's stale values in the organization with why; built-ins and other organizations have none", async () => {
    const extensions = await listing();
    expect(entry(extensions, 'reward_kinds', 'bonus').stale).toEqual({
      count: 2,
      values: [ids.visit, ids.big].map((id) => ({
        object_type: 'behavior',
        object_id: id,
        field: 'outcome_config.0.bonus',
        extension: 'bonus',
        problems: [
          { field: 'outcome_config.0.bonus.points', message: 'is not a known attribute' },
          { field: 'outcome_config.0.bonus.amount', message: 'must be an integer number' },
        ],
      })),
    });
    const minOf = entry(extensions, 'criteria_operators', 'min_of').stale;
    expect(minOf.count).toBe(3);
    expect(minOf.values.map((v: Json) => [v.object_type, v.object_id, v.field, v.problems[0].message])).toEqual([
      ['behavior', ids.shop, 'goal_groups.0.goals.0.achievement.criteria.0.value', 'must be an object'],
      ['campaign', campaignId, 'targeting.0.value', 'must be an object'],
      ['creative_group', groupId, 'targeting.0.value', 'must be an object'],
    ]);
    for (const e of [...extensions.reward_kinds, ...extensions.criteria_operators] as Json[]) if (e.source === 'core') expect(e.stale).toBeUndefined();

    const other = await createTenant(app!);
    const theirs = await listing(other);
    expect(entry(theirs, 'reward_kinds', 'bonus').stale).toBeUndefined();
    expect(entry(theirs, 'criteria_operators', 'min_of').stale).toBeUndefined();
  });

  it('accepts a PUT that renames a behavior, its stale values left out or sent back unchanged; they stay stale and reported', async () => {
    const renamed = await api(app!, tenant).put(`/management/behaviors/${ids.visit}`).send({ behavior: { name: 'Visit renamed' } }).expect(200);
    expect(renamed.body.behavior).toMatchObject({ name: 'Visit renamed', outcome_config: [{ bonus: { points: 10 } }] });
    const outcomeId = renamed.body.behavior.outcome_config[0].id;

    // Sent back as stored (the request form: no ids), with the other members changed.
    const again = await api(app!, tenant)
      .put(`/management/behaviors/${ids.visit}`)
      .send({ behavior: { name: 'Visit', points: 0, outcome_config: [{ bonus: { points: 10 } }] } })
      .expect(200);
    expect(again.body.behavior.outcome_config).toEqual([{ id: outcomeId, bonus: { points: 10 } }]);
    const criteria = [{ field: 'basket', op: 'min_of', value: 3 }];
    await api(app!, tenant)
      .put(`/management/behaviors/${ids.shop}`)
      .send({ behavior: { name: 'Shop again', goal_groups: [{ goals: [{ achievement: { name: 'shop', event_count: 1, criteria } }] }] } })
      .expect(200);

    const extensions = await listing();
    expect(entry(extensions, 'reward_kinds', 'bonus').stale.values.map((v: Json) => v.object_id)).toEqual([ids.visit, ids.big]);
    expect(entry(extensions, 'criteria_operators', 'min_of').stale.count).toBe(3);
  });

  it('checks a changed value as any write does', async () => {
    const changed = await api(app!, tenant).put(`/management/behaviors/${ids.visit}`).send({ behavior: { outcome_config: [{ bonus: { points: 11 } }] } }).expect(400);
    expect(changed.body.errors.code).toBe('validation');
    expect(changed.body.errors.details).toEqual(
      expect.arrayContaining([
        { field: 'behavior.outcome_config.0.bonus.points', message: 'is not a known attribute' },
        { field: 'behavior.outcome_config.0.bonus.amount', message: 'must be an integer number' },
      ]),
    );
    const criterion = await api(app!, tenant)
      .put(`/management/behaviors/${ids.shop}`)
      .send({ behavior: { goal_groups: [{ goals: [{ achievement: { name: 'shop', event_count: 1, criteria: [{ field: 'basket', op: 'min_of', value: 4 }] } }] }] } })
      .expect(400);
    expect(criterion.body.errors.details).toEqual([{ field: 'behavior.goal_groups.0.goals.0.achievement.criteria.0.value', message: 'must be an object' }]);
  });

  it('extensions:upgrade --dry-run answers what it would upgrade and what stays stale, and changes nothing', async () => {
    const before = await api(app!, tenant).get('/management/audit_log?limit=100').expect(200);
    const report = await upgrade('--dry-run');
    expect(report).toMatchObject({ status: 'ok', dry_run: true });
    expect(report.upgraded.map((u: Json) => [u.object_type, u.object_id, u.field, u.extension, u.before, u.after])).toEqual([
      ['behavior', ids.visit, 'outcome_config.0.bonus', 'bonus', { points: 10 }, { amount: 10 }],
      ['behavior', ids.shop, 'goal_groups.0.goals.0.achievement.criteria.0.value', 'min_of', 3, { min: 3 }],
      ['campaign', campaignId, 'targeting.0.value', 'min_of', 0, { min: 0 }],
      ['creative_group', groupId, 'targeting.0.value', 'min_of', 0, { min: 0 }],
    ]);
    expect(report.stale).toEqual([
      {
        organization_id: tenant.organizationId,
        object_type: 'behavior',
        object_id: ids.big,
        field: 'outcome_config.0.bonus',
        extension: 'bonus',
        reason: 'still_invalid',
        problems: [{ field: 'outcome_config.0.bonus.amount', message: 'must not be greater than 1000' }],
      },
    ]);
    expect(entry(await listing(), 'criteria_operators', 'min_of').stale.count).toBe(3);
    expect((await api(app!, tenant).get('/management/audit_log?limit=100').expect(200)).body.total).toBe(before.body.total);
  });

  it('extensions:upgrade writes the upgrades with an audit entry each; the listing reports what stays stale; events evaluate with them', async () => {
    const report = await upgrade();
    expect(report).toMatchObject({ status: 'ok', dry_run: false });
    expect(report.upgraded).toHaveLength(4);
    expect(report.stale.map((s: Json) => [s.object_id, s.reason])).toEqual([[ids.big, 'still_invalid']]);

    const extensions = await listing();
    expect(entry(extensions, 'criteria_operators', 'min_of').stale).toBeUndefined();
    expect(entry(extensions, 'reward_kinds', 'bonus').stale).toMatchObject({ count: 1, values: [{ object_id: ids.big }] });

    const visit = (await api(app!, tenant).get(`/management/behaviors/${ids.visit}`).expect(200)).body.behavior;
    expect(visit.outcome_config).toEqual([{ id: expect.any(Number), bonus: { amount: 10 } }]);
    const log = (await api(app!, tenant).get('/management/audit_log?limit=100').expect(200)).body.audit_log as Json[];
    const upgrades = log.filter((e) => e.api_key === null);
    expect(upgrades.map((e) => [e.action, e.object_type, e.object_id]).sort()).toEqual(
      [
        ['update', 'behavior', String(ids.visit)],
        ['update', 'behavior', String(ids.shop)],
        ['update', 'campaign', String(campaignId)],
        ['update', 'creative_group', String(groupId)],
      ].sort(),
    );
    const visitEntry = upgrades.find((e) => e.object_type === 'behavior' && e.object_id === String(ids.visit))!;
    expect(visitEntry.before).toEqual({ outcome_config: [expect.objectContaining({ bonus: { points: 10 } })] });
    expect(visitEntry.after).toEqual({ outcome_config: [expect.objectContaining({ bonus: { amount: 10 } })] });
    expect(upgrades.find((e) => e.object_type === 'campaign')).toMatchObject({ before: { targeting: [{ value: 0 }] }, after: { targeting: [{ value: { min: 0 } }] } });

    // The campaign's targeting (lifetime points at least 0), the goal's criterion (a basket of at least 3) and the
    // bonus (10) now hold with version 2.
    const customer = await createCustomer(app!, tenant);
    await api(app!, tenant).post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);
    await api(app!, tenant).post(`/users/${customer.id}/events`).send({ events: { shop: { basket: 5 } } }).expect(200);
    expect((await api(app!, tenant).get(`/users/${customer.id}`).expect(200)).body.user.available_points).toBe(17);

    // Run again: nothing left to upgrade, the same value stays stale.
    const again = await upgrade();
    expect(again.upgraded).toEqual([]);
    expect(again.stale.map((s: Json) => s.object_id)).toEqual([ids.big]);
  });
});
