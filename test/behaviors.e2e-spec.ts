import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectErrorAmongOthers as expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CSV_HEADER = 'goal_id,name,internal_event_name,event_count\n';

type Json = Record<string, unknown>;

/** One goal group of one goal: the smallest valid goal_groups. */
const oneGoal = (achievement: Json = {}, group: Json = {}) => [{ goals: [{ achievement: { name: 'visit', ...achievement } }], ...group }];

describe('behaviors', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let campaignId: number;
  let counter = 0;
  const nextName = (base = 'Behavior') => `${base} ${++counter}-${Date.now()}`;
  const minimal = (extra: Json = {}): Json => ({ name: nextName(), data: {}, goal_groups: oneGoal(), ...extra });

  const batch = (behaviors: unknown[], owner = tenant, campaign = campaignId) =>
    api(app, owner).post(`/management/campaigns/${campaign}/behaviors/_batch`).send({ behaviors });

  async function createOne(behavior: Json, owner = tenant, campaign = campaignId) {
    const res = await batch([behavior], owner, campaign);
    expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.objectContaining({ status: 'ok' }) });
    return res.body.behaviors[0];
  }

  /** The errors object answered for a single invalid behavior (after checking the envelope). */
  async function errorsOf(behavior: Json, campaign = campaignId): Promise<Record<string, string>> {
    const res = await batch([behavior], tenant, campaign);
    expectError(res, 400, 'validation');
    expect(res.body.behaviors).toEqual([{ ...behavior, errors: expect.any(Object) }]);
    return res.body.behaviors[0].errors;
  }

  async function createOffer(owner: TestTenant, points = 0): Promise<number> {
    const res = await api(app, owner).post('/management/offers').send({ offer: { name: nextName('Offer'), points } }).expect(201);
    return res.body.offer.id;
  }

  async function insertTier(owner: TestTenant, name: string, minPoints = 0): Promise<number> {
    const rows = await db.query(`INSERT INTO tiers (organization_id, name, min_points) VALUES ($1, $2, $3) RETURNING id`, [owner.organizationId, name, minPoints]);
    return rows[0].id;
  }

  /** A creative of the campaign: its line item (one per campaign), a new creative group, and the creative. */
  async function insertCreative(owner: TestTenant, campaign: number): Promise<number> {
    const [{ application_id: applicationId }] = await db.query(`SELECT application_id FROM api_keys WHERE key = $1`, [owner.apiKey]);
    let [lineItem] = await db.query(`SELECT id FROM line_items WHERE campaign_id = $1 AND deleted_at IS NULL`, [campaign]);
    if (!lineItem) {
      [lineItem] = await db.query(
        `INSERT INTO line_items (organization_id, campaign_id, name, status, starts_at, ends_at)
         VALUES ($1, $2, 'Main', 'live', now(), now() + interval '30 days') RETURNING id`,
        [owner.organizationId, campaign],
      );
    }
    const [group] = await db.query(
      `INSERT INTO creative_groups (organization_id, line_item_id, name, status, starts_at, ends_at)
       VALUES ($1, $2, 'Everyone', 'live', now(), now() + interval '30 days') RETURNING id`,
      [owner.organizationId, lineItem.id],
    );
    const [creative] = await db.query(
      `INSERT INTO creatives (organization_id, creative_group_id, application_id, name, status, ad_type, creative_type, issue_audience_csv)
       VALUES ($1, $2, $3, 'Push', 'live', 'push_message', 'messaging-platform-push', '{"delivery_method":"triggered"}') RETURNING id`,
      [owner.organizationId, group.id, applicationId],
    );
    return creative.id;
  }

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    tenant = await createTenant(app);
    otherTenant = await createTenant(app);
    campaignId = (await createCampaign(app, tenant)).id;
  });
  afterAll(() => app.close());

  describe('POST campaigns/:campaign_id/behaviors/_batch', () => {
    it('stores the contract §6 example and answers it field by field, the same on GET', async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      const offerId = await createOffer(tenant, 20);
      const creativeId = await insertCreative(tenant, campaign);
      const tierName = nextName('Gold');
      const tierId = await insertTier(tenant, tierName, 500);
      const name = nextName('Visit three stores');
      const criteria = [{ field: 'context.app_name', op: 'eq', value: 'mobile' }];
      const res = await batch(
        [
          {
            name,
            tags: 'explorer|visitor',
            points: 50,
            data: { period: 604800, max_times_achievable: 4, max_times_achievable_per_period: 1 },
            goal_groups: [
              {
                goal_count: 1,
                goals: [
                  {
                    achievement: {
                      name: 'store_visit',
                      internal_event_name: 'store_visit',
                      event_count: 3,
                      type: 'unique',
                      unique_attribute: 'store_id',
                      points: 5,
                      required: true,
                      criteria,
                      data: { min_time_between_events: 60 },
                    },
                  },
                ],
              },
            ],
            outcome_config: [{ deal: { id: offerId } }, { ad_unit: { id: creativeId } }, { points: 10 }, { event: { name: 'explorer_done', by: 1 } }, { tier: { name: tierName.toUpperCase() } }],
          },
        ],
        tenant,
        campaign,
      );
      expect(res.status).toBe(201);
      const [behavior] = res.body.behaviors;
      const goalId = behavior.goal_groups[0].goals[0].achievement.id;
      const outcomeIds: number[] = behavior.outcome_config.map((o: { id: number }) => o.id);
      const outcome = (i: number, modelId: number | null, modelType: string) => ({
        id: outcomeIds[i],
        account_id: tenant.organizationId,
        organization_id: tenant.organizationId,
        model_id: modelId,
        model_type: modelType,
        created_at: expect.stringMatching(ISO_UTC_MS),
        updated_at: expect.stringMatching(ISO_UTC_MS),
      });
      expect(res.body).toEqual({
        status: 'ok',
        behaviors: [
          {
            id: expect.any(Number),
            campaign_id: campaign,
            name,
            tags: 'explorer|visitor',
            points: 50,
            data: {
              period: 604800,
              max_times_achievable: 4,
              max_times_achievable_per_period: 1,
              goals_csv_data: `${CSV_HEADER}${goalId},store_visit,store_visit,3\n`,
            },
            goal_groups: [
              {
                goal_count: 1,
                goals: [
                  {
                    achievement: {
                      id: expect.any(Number),
                      name: 'store_visit',
                      internal_event_name: 'store_visit',
                      event_count: 3,
                      type: 'unique',
                      unique_attribute: 'store_id',
                      points: 5,
                      required: true,
                      criteria,
                      tags: null,
                      data: { min_time_between_events: 60 },
                      errors: {},
                    },
                  },
                ],
              },
            ],
            outcome_config: [
              { id: expect.any(Number), deal: { id: offerId } },
              { id: expect.any(Number), ad_unit: { id: creativeId } },
              { id: expect.any(Number), points: 10 },
              { id: expect.any(Number), event: { name: 'explorer_done', by: 1 } },
              { id: expect.any(Number), tier: { name: tierName } },
            ],
            outcomes: [outcome(0, offerId, 'Offer'), outcome(1, creativeId, 'AdUnit'), outcome(2, null, 'Points'), outcome(3, null, 'EventOutcome'), outcome(4, tierId, 'Tier')],
            variant: null,
            errors: {},
            created_at: expect.stringMatching(ISO_UTC_MS),
            updated_at: expect.stringMatching(ISO_UTC_MS),
          },
        ],
      });
      expect(new Set(outcomeIds).size).toBe(5);
      const list = await api(app, tenant).get(`/management/campaigns/${campaign}/behaviors`).expect(200);
      expect(list.body).toEqual({ status: 'ok', behaviors: [behavior] });
      const one = await api(app, tenant).get(`/management/behaviors/${behavior.id}`).expect(200);
      expect(one.body).toEqual({ status: 'ok', behavior });
    });

    it('applies the defaults, keeps other data members, and gives every goal its own id', async () => {
      const name = nextName();
      const res = await batch([
        {
          name,
          data: { result_trigger: 'x', precise_event_count: true },
          goal_groups: [
            { goals: [{ achievement: { name: 'a, "quoted"' } }, { achievement: { name: 'b', internal_event_name: 'purchase', data: { unit_precision: 2 } } }] },
            { goals: [{ achievement: { name: 'c', internal_event_name: null, unique_attribute: null, tags: null } }] },
          ],
        },
      ]).expect(201);
      const [behavior] = res.body.behaviors;
      const goal = (id: number, goalName: string, extra: Json = {}) => ({
        achievement: {
          id,
          name: goalName,
          internal_event_name: null,
          event_count: 1,
          type: 'count',
          unique_attribute: null,
          points: 0,
          required: false,
          criteria: [],
          tags: null,
          data: {},
          errors: {},
          ...extra,
        },
      });
      const ids: number[] = behavior.goal_groups.flatMap((g: { goals: Array<{ achievement: { id: number } }> }) => g.goals.map((x) => x.achievement.id));
      expect(new Set(ids).size).toBe(3);
      expect(behavior).toEqual(
        expect.objectContaining({
          name,
          tags: null,
          points: 0,
          data: {
            result_trigger: 'x',
            precise_event_count: true,
            goals_csv_data: `${CSV_HEADER}${ids[0]},"a, ""quoted""",,1\n${ids[1]},b,purchase,1\n${ids[2]},c,,1\n`,
          },
          goal_groups: [
            { goal_count: 2, goals: [goal(ids[0], 'a, "quoted"'), goal(ids[1], 'b', { internal_event_name: 'purchase', data: { unit_precision: 2 } })] },
            { goal_count: 1, goals: [goal(ids[2], 'c')] },
          ],
          outcome_config: [],
          outcomes: [],
          errors: {},
        }),
      );
    });

    it('answers data members sent as null (not set) as null, and criteria with every kind of value as sent', async () => {
      const criteria = [
        { field: 'context.channel', op: 'eq', value: null },
        { field: 'amount', op: 'gte', value: 10.5 },
        { field: 'store_id', op: 'nin', value: ['s-1', 2, false] },
        { field: 'coupon', op: 'exists' },
        { field: 'first', op: 'ne', value: true },
      ];
      const behavior = await createOne(
        minimal({ data: { period: null, use_same_period: null }, goal_groups: oneGoal({ criteria, data: { min_time_between_events: null } }) }),
      );
      expect(behavior.data).toEqual({ period: null, use_same_period: null, goals_csv_data: expect.any(String) });
      expect(behavior.goal_groups[0].goals[0].achievement).toEqual(expect.objectContaining({ criteria, data: { min_time_between_events: null } }));
    });

    it('stores several behaviors in order, each with an audit entry, and bumps the rules version', async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      const [{ rules_version: before }] = await db.query(`SELECT rules_version FROM organizations WHERE id = $1`, [tenant.organizationId]);
      const res = await batch([minimal({ points: 1 }), minimal({ points: 2 })], tenant, campaign).expect(201);
      expect(res.body.behaviors.map((b: { points: number }) => b.points)).toEqual([1, 2]);
      const ids = res.body.behaviors.map((b: { id: number }) => String(b.id));
      const rows = await db.query(
        `SELECT object_id, action, after FROM audit_log WHERE organization_id = $1 AND object_type = 'behavior' AND object_id = ANY($2) ORDER BY id`,
        [tenant.organizationId, ids],
      );
      expect(rows).toEqual(ids.map((id: string, i: number) => ({ object_id: id, action: 'create', after: res.body.behaviors[i] })));
      const [{ rules_version: after }] = await db.query(`SELECT rules_version FROM organizations WHERE id = $1`, [tenant.organizationId]);
      expect(Number(after) - Number(before)).toBe(2);
    });

    it('stores nothing when one behavior is invalid, and answers every behavior with its errors', async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      const valid = minimal();
      const invalid = minimal({ points: -1, goal_groups: oneGoal({ type: 'unique' }) });
      const alsoValid = minimal();
      const res = await batch([valid, invalid, alsoValid], tenant, campaign);
      expect(expectError(res, 400, 'validation').sort()).toEqual(['behaviors.1.goal_groups.0.goals.0.achievement.unique_attribute', 'behaviors.1.points']);
      expect(res.body.behaviors).toEqual([
        { ...valid, errors: {} },
        {
          ...invalid,
          errors: {
            points: 'must be an integer of at least 0',
            'goal_groups.0.goals.0.achievement.unique_attribute': 'is required when type is unique',
          },
        },
        { ...alsoValid, errors: {} },
      ]);
      const list = await api(app, tenant).get(`/management/campaigns/${campaign}/behaviors`).expect(200);
      expect(list.body.behaviors).toEqual([]);
      // Nothing was written, so the answered behaviors, fixed, can be sent again as they are (their errors ignored).
      const [first, second, third] = res.body.behaviors;
      const fixed = { ...second, points: 1, goal_groups: oneGoal({ type: 'unique', unique_attribute: 'store_id' }) };
      const again = await batch([first, fixed, third], tenant, campaign).expect(201);
      expect(again.body.behaviors.map((b: { name: string; errors: Json }) => [b.name, b.errors])).toEqual([valid, invalid, alsoValid].map((b) => [b.name, {}]));
    });

    describe('answers validation, with the problem in the behavior errors, for', () => {
      const goalField = (member: string) => `goal_groups.0.goals.0.achievement.${member}`;

      it.each<[string, Json, Record<string, string | RegExp>]>([
        ['a unique goal without unique_attribute', { goal_groups: oneGoal({ type: 'unique' }) }, { [goalField('unique_attribute')]: 'is required when type is unique' }],
        ['an unknown criteria operator', { goal_groups: oneGoal({ criteria: [{ field: 'context.app_name', op: 'like', value: 'x' }] }) }, { [`${goalField('criteria')}.0.op`]: /^must be one of eq, ne/ }],
        ['a criterion without value', { goal_groups: oneGoal({ criteria: [{ field: 'count', op: 'gt' }] }) }, { [`${goalField('criteria')}.0.value`]: 'is required for gt' }],
        ['a criteria field that is no attribute name', { goal_groups: oneGoal({ criteria: [{ field: 'store id', op: 'eq', value: 1 }] }) }, { [`${goalField('criteria')}.0.field`]: /attribute name/ }],
        ['criteria that is not an array', { goal_groups: oneGoal({ criteria: 'x' }) }, { [goalField('criteria')]: 'must be an array of {field, op, value}' }],
        ['a goal_count over the number of goals', { goal_groups: oneGoal({}, { goal_count: 2 }) }, { 'goal_groups.0.goal_count': 'must be an integer from 1 to 1' }],
        ['a goal_count of 0', { goal_groups: oneGoal({}, { goal_count: 0 }) }, { 'goal_groups.0.goal_count': 'must be an integer from 1 to 1' }],
        ['an event_count of 0', { goal_groups: oneGoal({ event_count: 0 }) }, { [goalField('event_count')]: 'must be an integer of at least 1' }],
        ['an unknown goal type', { goal_groups: oneGoal({ type: 'sum' }) }, { [goalField('type')]: 'must be count or unique' }],
        ['negative goal points', { goal_groups: oneGoal({ points: -5 }) }, { [goalField('points')]: 'must be an integer of at least 0' }],
        ['a goal without name', { goal_groups: [{ goals: [{ achievement: { event_count: 2 } }] }] }, { [goalField('name')]: 'is required' }],
        ['a goal without achievement', { goal_groups: [{ goals: [{}] }] }, { 'goal_groups.0.goals.0.achievement': 'is required' }],
        ['a non-boolean required', { goal_groups: oneGoal({ required: 'yes' }) }, { [goalField('required')]: 'must be true or false' }],
        [
          'bad goal data values',
          { goal_groups: oneGoal({ data: { min_time_between_events: 0, min_time_between_events_count: -1, consecutive: 'true', note: 'kept' } }) },
          {
            [goalField('data.min_time_between_events')]: 'must be an integer of at least 1',
            [goalField('data.min_time_between_events_count')]: 'must be an integer of at least 1',
            [goalField('data.consecutive')]: 'must be true or false',
          },
        ],
        ['goal data that is not an object', { goal_groups: oneGoal({ data: [1] }) }, { [goalField('data')]: 'must be an object' }],
        [
          'bad behavior data values',
          {
            data: {
              period: 0,
              max_times_achievable: 0,
              max_times_achievable_per_period: 1.5,
              max_times_achievable_per_month: '1',
              max_times_achievable_per_year: -1,
              use_same_period: 'yes',
              consecutive: 1,
              eligible_spend: 'no',
              min_time_between_events: 0,
              min_time_between_events_count: 0,
              anything_else: { kept: true },
            },
          },
          {
            'data.period': 'must be an integer of at least 1',
            'data.max_times_achievable': 'must be an integer of at least 1',
            'data.max_times_achievable_per_period': 'must be an integer of at least 1',
            'data.max_times_achievable_per_month': 'must be an integer of at least 1',
            'data.max_times_achievable_per_year': 'must be an integer of at least 1',
            'data.use_same_period': 'must be true or false',
            'data.consecutive': 'must be true or false',
            'data.eligible_spend': 'must be true or false',
            'data.min_time_between_events': 'must be an integer of at least 1',
            'data.min_time_between_events_count': 'must be an integer of at least 1',
          },
        ],
        ['missing data', { data: undefined }, { data: 'is required' }],
        ['data that is not an object', { data: 'caps' }, { data: 'must be an object' }],
        ['a missing name', { name: undefined }, { name: 'is required' }],
        ['a name over 255 characters', { name: 'x'.repeat(256) }, { name: 'must be a string of 1 to 255 characters' }],
        ['negative points', { points: -1 }, { points: 'must be an integer of at least 0' }],
        ['tags with an empty tag', { tags: 'a||b' }, { tags: /^must be a string of tags joined with \|/ }],
        ['tags that are not a string', { tags: ['a'] }, { tags: /^must be a string of tags joined with \|/ }],
        ['missing goal_groups', { goal_groups: undefined }, { goal_groups: 'is required' }],
        ['no goal groups', { goal_groups: [] }, { goal_groups: 'must be an array of 1 to 20 goal groups' }],
        ['21 goal groups', { goal_groups: Array.from({ length: 21 }, (_, i) => oneGoal({ name: `g${i}` })[0]) }, { goal_groups: 'must be an array of 1 to 20 goal groups' }],
        ['a group without goals', { goal_groups: [{ goals: [] }] }, { 'goal_groups.0.goals': 'must be an array of 1 to 50 goals' }],
        ['51 goals in a group', { goal_groups: [{ goals: Array.from({ length: 51 }, (_, i) => ({ achievement: { name: `g${i}` } })) }] }, { 'goal_groups.0.goals': 'must be an array of 1 to 50 goals' }],
        ['two goals of the same name', { goal_groups: [...oneGoal(), ...oneGoal()] }, { 'goal_groups.1.goals.0.achievement.name': 'is used by another goal of this behavior' }],
        ['an unknown behavior member', { colour: 'red' }, { colour: 'is not a known attribute' }],
        ['a member only the service answers', { id: 3 }, { id: 'is answered by the service and cannot be written' }],
        ['an unknown achievement member', { goal_groups: oneGoal({ size: 1 }) }, { [goalField('size')]: 'is not a known attribute' }],
        ['an unknown goal member', { goal_groups: [{ goals: [{ achievement: { name: 'v' }, extra: 1 }] }] }, { 'goal_groups.0.goals.0.extra': 'is not a known attribute' }],
        ['an unknown group member', { goal_groups: oneGoal({}, { mode: 'all' }) }, { 'goal_groups.0.mode': 'is not a known attribute' }],
        ['several outcome kinds in one object', { outcome_config: [{ points: 10, event: { name: 'x' } }] }, { 'outcome_config.0': 'holds points and event: one outcome per object' }],
        ['an empty outcome', { outcome_config: [{}] }, { 'outcome_config.0': 'must hold one of deal, ad_unit, points, event, tier' }],
        ['an unknown outcome member', { outcome_config: [{ points: 1, badge: 'x' }] }, { 'outcome_config.0.badge': 'is not a known attribute' }],
        ['an outcome of 0 points', { outcome_config: [{ points: 0 }] }, { 'outcome_config.0.points': 'must be an integer of at least 1' }],
        ['an event outcome without name', { outcome_config: [{ event: { by: 2 } }] }, { 'outcome_config.0.event.name': 'is required' }],
        ['an event outcome with by 0', { outcome_config: [{ event: { name: 'x', by: 0 } }] }, { 'outcome_config.0.event.by': 'must be a number greater than 0' }],
        ['a deal that is not an object', { outcome_config: [{ deal: 12 }] }, { 'outcome_config.0.deal': 'must be an object {id}' }],
        ['a deal id that is not an integer', { outcome_config: [{ deal: { id: 'x' } }] }, { 'outcome_config.0.deal.id': 'must be an integer of at least 1' }],
        ['an unknown offer', { outcome_config: [{ deal: { id: 2_000_000_000 } }] }, { 'outcome_config.0.deal.id': 'is not an offer of this organization' }],
        ['an unknown creative', { outcome_config: [{ ad_unit: { id: 2_000_000_000 } }] }, { 'outcome_config.0.ad_unit.id': 'is not a creative of this campaign' }],
        ['an unknown tier', { outcome_config: [{ tier: { name: 'Nowhere' } }] }, { 'outcome_config.0.tier.name': 'is not a tier of this organization' }],
        ['outcome_config that is not an array', { outcome_config: { points: 1 } }, { outcome_config: 'must be an array of at most 20 outcomes' }],
        ['21 outcomes', { outcome_config: Array.from({ length: 21 }, () => ({ points: 1 })) }, { outcome_config: 'must be an array of at most 20 outcomes' }],
      ])('%s', async (_label, change, expected) => {
        const behavior = minimal(change);
        for (const key of Object.keys(behavior)) if (behavior[key] === undefined) delete behavior[key];
        const errors = await errorsOf(behavior);
        const matchers = Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, typeof v === 'string' ? v : expect.stringMatching(v)]));
        expect(errors).toEqual(matchers);
      });

      it('an offer of another organization, a deleted offer, and a deleted tier', async () => {
        const foreignOffer = await createOffer(otherTenant);
        const deletedOffer = await createOffer(tenant);
        await api(app, tenant).delete(`/management/offers/${deletedOffer}`).expect(200);
        const tierName = nextName('Old tier');
        const tierId = await insertTier(tenant, tierName);
        await db.query(`UPDATE tiers SET deleted_at = now() WHERE id = $1`, [tierId]);
        const foreignTier = nextName('Foreign tier');
        await insertTier(otherTenant, foreignTier);
        const errors = await errorsOf(
          minimal({ outcome_config: [{ deal: { id: foreignOffer } }, { deal: { id: deletedOffer } }, { tier: { name: tierName } }, { tier: { name: foreignTier } }] }),
        );
        expect(errors).toEqual({
          'outcome_config.0.deal.id': 'is not an offer of this organization',
          'outcome_config.1.deal.id': 'is not an offer of this organization',
          'outcome_config.2.tier.name': 'is not a tier of this organization',
          'outcome_config.3.tier.name': 'is not a tier of this organization',
        });
      });

      it('a creative of another campaign, or a deleted one', async () => {
        const other = (await createCampaign(app, tenant)).id;
        const elsewhere = await insertCreative(tenant, other);
        const deleted = await insertCreative(tenant, campaignId);
        await db.query(`UPDATE creatives SET deleted_at = now() WHERE id = $1`, [deleted]);
        const errors = await errorsOf(minimal({ outcome_config: [{ ad_unit: { id: elsewhere } }, { ad_unit: { id: deleted } }] }));
        expect(errors).toEqual({
          'outcome_config.0.ad_unit.id': 'is not a creative of this campaign',
          'outcome_config.1.ad_unit.id': 'is not a creative of this campaign',
        });
        const good = await createOne(minimal({ outcome_config: [{ ad_unit: { id: elsewhere } }] }), tenant, other);
        expect(good.outcomes[0]).toEqual(expect.objectContaining({ model_id: elsewhere, model_type: 'AdUnit' }));
      });

      it('two behaviors of the same name in the batch (case-insensitive)', async () => {
        const name = nextName();
        const res = await batch([minimal({ name }), minimal({ name: name.toUpperCase() })]);
        expectError(res, 400, 'validation');
        expect(res.body.behaviors.map((b: { errors: Json }) => b.errors)).toEqual([{}, { name: 'is used by behavior 0 of this batch' }]);
      });

      it('a name used by a behavior of the organization, even in another campaign, but not by another organization', async () => {
        const existing = await createOne(minimal());
        const other = (await createCampaign(app, tenant)).id;
        expect(await errorsOf(minimal({ name: existing.name }), other)).toEqual({ name: 'is already used by another behavior of this organization' });
        const foreignCampaign = (await createCampaign(app, otherTenant)).id;
        await createOne(minimal({ name: existing.name }), otherTenant, foreignCampaign);
      });
    });

    it('answers missing_data without the behaviors wrapper', async () => {
      expect(expectError(await api(app, tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({}), 400, 'missing_data')).toEqual(['behaviors']);
      expectError(await api(app, tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors: null }), 400, 'missing_data');
    });

    it('answers argument_error for unknown top-level members', async () => {
      const res = await api(app, tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors: [minimal()], dry_run: true });
      expect(expectError(res, 400, 'argument_error')).toEqual(['dry_run']);
    });

    it('answers validation for an empty batch, a batch over 100, and items that are not objects', async () => {
      expectError(await batch([]), 400, 'validation');
      expectError(await batch(Array.from({ length: 101 }, () => minimal())), 400, 'validation');
      expectError(await batch(['x']), 400, 'validation');
      expectError(await api(app, tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors: minimal() }), 400, 'validation');
    });

    it('accepts a batch of 100 behaviors', async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      const res = await batch(Array.from({ length: 100 }, () => minimal()), tenant, campaign).expect(201);
      expect(res.body.behaviors).toHaveLength(100);
    });
  });

  describe('PUT behaviors/:behavior_id', () => {
    it('replaces the behavior, keeping goal ids by name and outcome ids by what they award', async () => {
      const offerId = await createOffer(tenant);
      const created = await createOne(
        minimal({
          points: 5,
          goal_groups: [{ goals: [{ achievement: { name: 'keep', event_count: 2 } }, { achievement: { name: 'drop' } }] }],
          outcome_config: [{ deal: { id: offerId } }, { points: 3 }],
        }),
      );
      const [keep, drop] = created.goal_groups[0].goals.map((g: { achievement: { id: number } }) => g.achievement.id);
      const name = nextName('Renamed');
      const res = await api(app, tenant)
        .put(`/management/behaviors/${created.id}`)
        .send({
          behavior: {
            name,
            points: 7,
            data: { max_times_achievable: 1 },
            goal_groups: [{ goals: [{ achievement: { name: 'new' } }] }, { goal_count: 1, goals: [{ achievement: { name: 'keep', event_count: 4 } }] }],
            outcome_config: [{ points: 4 }, { deal: { id: offerId } }],
          },
        })
        .expect(200);
      const behavior = res.body.behavior;
      const newId = behavior.goal_groups[0].goals[0].achievement.id;
      expect(behavior).toEqual(
        expect.objectContaining({
          id: created.id,
          name,
          points: 7,
          tags: null,
          data: { max_times_achievable: 1, goals_csv_data: `${CSV_HEADER}${newId},new,,1\n${keep},keep,,4\n` },
          goal_groups: [
            { goal_count: 1, goals: [{ achievement: expect.objectContaining({ name: 'new' }) }] },
            { goal_count: 1, goals: [{ achievement: expect.objectContaining({ id: keep, name: 'keep', event_count: 4 }) }] },
          ],
          outcome_config: [
            { id: expect.any(Number), points: 4 },
            { id: created.outcome_config[0].id, deal: { id: offerId } },
          ],
        }),
      );
      expect([keep, drop, created.outcome_config[1].id]).not.toContain(newId);
      expect(behavior.outcome_config[0].id).not.toBe(created.outcome_config[1].id);
      expect(behavior.outcomes[1]).toEqual(expect.objectContaining({ created_at: created.outcomes[0].created_at }));
      const got = await api(app, tenant).get(`/management/behaviors/${created.id}`).expect(200);
      expect(got.body.behavior).toEqual(behavior);
      const rows = await db.query(`SELECT action, before, after FROM audit_log WHERE object_type = 'behavior' AND object_id = $1 ORDER BY id`, [String(created.id)]);
      expect(rows).toEqual([
        expect.objectContaining({ action: 'create' }),
        { action: 'update', before: created, after: behavior },
      ]);
    });

    it('is partial: {"behavior":{"points":3}} changes the points only; name, tags, data, goals (ids) and outcomes (ids) keep their values', async () => {
      const offerId = await createOffer(tenant);
      const created = await createOne(
        minimal({
          tags: 'explorer',
          points: 50,
          data: { period: 604800, max_times_achievable_per_period: 1, note: 'kept' },
          goal_groups: [{ goal_count: 1, goals: [{ achievement: { name: 'visit', event_count: 3, type: 'unique', unique_attribute: 'store_id', criteria: [{ field: 'context.app', op: 'eq', value: 'm' }] } }, { achievement: { name: 'buy', points: 2, required: true } }] }],
          outcome_config: [{ deal: { id: offerId } }, { points: 10 }],
        }),
      );
      const res = await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: { points: 3 } });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok', behavior: { ...created, points: 3, updated_at: expect.any(String) } } });
      const got = await api(app, tenant).get(`/management/behaviors/${created.id}`).expect(200);
      expect(got.body.behavior).toEqual(res.body.behavior);
      const rows = await db.query(`SELECT action, before, after FROM audit_log WHERE object_type = 'behavior' AND object_id = $1 ORDER BY id`, [String(created.id)]);
      expect(rows).toEqual([expect.objectContaining({ action: 'create' }), { action: 'update', before: created, after: res.body.behavior }]);
    });

    it('is partial member by member: a member sent replaces the stored one whole, tags null clears the tags, {} changes nothing', async () => {
      const created = await createOne(minimal({ tags: 'a|b', data: { period: 86400, max_times_achievable: 2 }, goal_groups: oneGoal() }));
      const goalId = created.goal_groups[0].goals[0].achievement.id;
      const data = await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: { data: { max_times_achievable: 5 } } }).expect(200);
      expect(data.body.behavior.data).toEqual({ max_times_achievable: 5, goals_csv_data: expect.any(String) });
      expect(data.body.behavior.tags).toBe('a|b');
      expect(data.body.behavior.goal_groups[0].goals[0].achievement.id).toBe(goalId);
      const untagged = await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: { tags: null } }).expect(200);
      expect(untagged.body.behavior).toEqual({ ...data.body.behavior, tags: null, updated_at: expect.any(String) });
      const same = await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: {} }).expect(200);
      expect(same.body.behavior).toEqual({ ...untagged.body.behavior, updated_at: expect.any(String) });
    });

    it('checks a partial body with the stored members as one behavior: invalid members answer validation with the submitted ones, changing nothing', async () => {
      const created = await createOne(minimal({ points: 4 }));
      const nameless = await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: { name: null } });
      expect(expectError(nameless, 400, 'validation')).toEqual(['behavior.name']);
      expect(nameless.body.behavior).toEqual({ name: null, errors: { name: 'is required' } });
      const negative = await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: { points: -1, goal_groups: oneGoal({ type: 'unique' }) } });
      expect(expectError(negative, 400, 'validation').sort()).toEqual(['behavior.goal_groups.0.goals.0.achievement.unique_attribute', 'behavior.points']);
      expectError(await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: { id: 9 } }), 400, 'validation');
      const got = await api(app, tenant).get(`/management/behaviors/${created.id}`).expect(200);
      expect(got.body.behavior).toEqual(created);
    });

    it('does not check again the outcomes it keeps (an offer deleted since), but checks outcome_config when it is sent', async () => {
      const offerId = await createOffer(tenant);
      const created = await createOne(minimal({ outcome_config: [{ deal: { id: offerId } }] }));
      await api(app, tenant).delete(`/management/offers/${offerId}`).expect(200);
      const res = await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: { points: 9 } }).expect(200);
      expect(res.body.behavior.outcome_config).toEqual(created.outcome_config);
      const resent = await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: { outcome_config: [{ deal: { id: offerId } }] } });
      expect(expectError(resent, 400, 'validation')).toEqual(['behavior.outcome_config.0.deal.id']);
    });

    it('answers validation with the behavior and its errors, and changes nothing', async () => {
      const created = await createOne(minimal());
      const submitted = { name: created.name, data: {}, goal_groups: oneGoal({ type: 'unique' }), outcome_config: [{ points: 0 }] };
      const res = await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: submitted });
      expect(expectError(res, 400, 'validation').sort()).toEqual(['behavior.goal_groups.0.goals.0.achievement.unique_attribute', 'behavior.outcome_config.0.points']);
      expect(res.body.behavior).toEqual({
        ...submitted,
        errors: {
          'goal_groups.0.goals.0.achievement.unique_attribute': 'is required when type is unique',
          'outcome_config.0.points': 'must be an integer of at least 1',
        },
      });
      const got = await api(app, tenant).get(`/management/behaviors/${created.id}`).expect(200);
      expect(got.body.behavior).toEqual(created);
    });

    it("keeps its own name (any case), and refuses another behavior's", async () => {
      const a = await createOne(minimal());
      const b = await createOne(minimal());
      const renamed = await api(app, tenant).put(`/management/behaviors/${a.id}`).send({ behavior: minimal({ name: a.name.toUpperCase() }) }).expect(200);
      expect(renamed.body.behavior.name).toBe(a.name.toUpperCase());
      const res = await api(app, tenant).put(`/management/behaviors/${a.id}`).send({ behavior: minimal({ name: b.name }) });
      expect(expectError(res, 400, 'validation')).toEqual(['behavior.name']);
    });

    it('answers missing_data without the wrapper and argument_error for unknown top-level members', async () => {
      const created = await createOne(minimal());
      expectError(await api(app, tenant).put(`/management/behaviors/${created.id}`).send({}), 400, 'missing_data');
      expectError(await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: minimal(), force: true }), 400, 'argument_error');
    });
  });

  describe('DELETE behaviors/:behavior_id', () => {
    it('soft deletes: marker on the name, 404 afterwards, gone from the list, name free again, audited', async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      const created = await createOne(minimal(), tenant, campaign);
      const res = await api(app, tenant).delete(`/management/behaviors/${created.id}`).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        behavior: expect.objectContaining({
          id: created.id,
          name: expect.stringMatching(/ \[DELETED AT \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\]$/),
          deleted_at: expect.stringMatching(ISO_UTC_MS),
        }),
      });
      expect(res.body.behavior.name.startsWith(`${created.name} [DELETED AT `)).toBe(true);
      expectError(await api(app, tenant).get(`/management/behaviors/${created.id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/management/behaviors/${created.id}`).send({ behavior: minimal() }), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/behaviors/${created.id}`), 404, 'not_found');
      const list = await api(app, tenant).get(`/management/campaigns/${campaign}/behaviors`).expect(200);
      expect(list.body.behaviors).toEqual([]);
      await createOne(minimal({ name: created.name }), tenant, campaign);
      const rows = await db.query(`SELECT action FROM audit_log WHERE object_type = 'behavior' AND object_id = $1 ORDER BY id`, [String(created.id)]);
      expect(rows).toEqual([{ action: 'create' }, { action: 'delete' }]);
    });
  });

  describe('across organizations and deleted campaigns', () => {
    it("answers 404 for another organization's campaign", async () => {
      const foreign = (await createCampaign(app, otherTenant)).id;
      expectError(await batch([minimal()], tenant, foreign), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/campaigns/${foreign}/behaviors`), 404, 'not_found');
      const list = await api(app, otherTenant).get(`/management/campaigns/${foreign}/behaviors`).expect(200);
      expect(list.body.behaviors).toEqual([]);
    });

    it("answers 404 for another organization's behavior on every route", async () => {
      const foreignCampaign = (await createCampaign(app, otherTenant)).id;
      const foreign = await createOne(minimal(), otherTenant, foreignCampaign);
      expectError(await api(app, tenant).get(`/management/behaviors/${foreign.id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/management/behaviors/${foreign.id}`).send({ behavior: minimal() }), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/behaviors/${foreign.id}`), 404, 'not_found');
      await api(app, otherTenant).get(`/management/behaviors/${foreign.id}`).expect(200);
    });

    it('answers 404 for a deleted campaign and the behaviors it took with it', async () => {
      const campaign = (await createCampaign(app, tenant)).id;
      const created = await createOne(minimal(), tenant, campaign);
      await api(app, tenant).delete(`/management/campaigns/${campaign}`).expect(200);
      expectError(await batch([minimal()], tenant, campaign), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/campaigns/${campaign}/behaviors`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/behaviors/${created.id}`), 404, 'not_found');
    });

    it('answers 404 for ids that cannot exist', async () => {
      expectError(await api(app, tenant).get('/management/behaviors/abc'), 404, 'not_found');
      expectError(await api(app, tenant).get('/management/behaviors/0'), 404, 'not_found');
      expectError(await api(app, tenant).get('/management/campaigns/x/behaviors'), 404, 'not_found');
    });
  });
});
