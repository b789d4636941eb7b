import { Module, type INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CriteriaOperator, CriteriaOperatorHandler, RewardKind, RewardKindHandler, type RewardContext } from '../src/extension-api/index.js';
import { createTestApp } from './support/app.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createBehavior } from './factories/behavior.factory.js';

/** A team's operator: the store code starts with the value. */
@CriteriaOperator({ name: 'starts_with', description: 'The value starts with the given text.' })
class StartsWith extends CriteriaOperatorHandler {
  test(actual: unknown, expected: unknown): boolean {
    return typeof actual === 'string' && typeof expected === 'string' && actual.startsWith(expected);
  }
}

/** A team's reward: three times the points given. */
@RewardKind({ name: 'triple_points', description: 'Credits three times the points given.' })
class TriplePoints extends RewardKindHandler<number> {
  apply(ctx: RewardContext, points: number): void {
    ctx.credit(points * 3);
  }
  override points(points: number): number {
    return points * 3;
  }
}

/** The team's module, added beside the application's own: no file of src/ names it. */
@Module({ providers: [StartsWith, TriplePoints] })
class StoreExtensionsModule {}

describe('extensions loaded into the application (issue #29)', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;

  beforeAll(async () => {
    app = await createTestApp({}, [StoreExtensionsModule]);
    db = app.get(DataSource);
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  /**
   * A live behavior completing on each `visit`, written with built-ins (the write-time checks of extensions' arguments
   * come next), then given the extension's operator and reward in the database, as a behavior written with them is stored.
   */
  async function behaviorWithExtensions(): Promise<number> {
    const campaign = await createCampaign(app, tenant);
    const behavior = await createBehavior(app, tenant, campaign.id, { name: `Paris visits ${Date.now()}`, event: 'visit', criteria: [{ field: 'store', op: 'eq', value: 'x' }], outcomes: [{ points: 1 }] });
    await db.query(
      `UPDATE behaviors
          SET goal_groups = jsonb_set(goal_groups, '{0,goals,0,criteria}', '[{"field": "store", "op": "starts_with", "value": "PAR"}]'),
              outcome_config = jsonb_set(outcome_config, '{0}', (outcome_config->0) - 'points' || '{"triple_points": 5}')
        WHERE id = $1`,
      [behavior.id],
    );
    await db.query(`UPDATE organizations SET rules_version = rules_version + 1 WHERE id = $1`, [tenant.organizationId]);
    return behavior.id;
  }

  async function visit(customerId: string, store: string) {
    const res = await api(app, tenant).post(`/users/${customerId}/events`).send({ events: { visit: { store } } }).expect(200);
    return res.body;
  }

  it("evaluates live events with the extension's operator and reward", async () => {
    await behaviorWithExtensions();
    const customer = await createCustomer(app, tenant);
    await visit(customer.id, 'LYON-2');
    expect((await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user.available_points).toBe(0);
    await visit(customer.id, 'PAR-01');
    const user = (await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user;
    expect([user.available_points, user.lifetime_points]).toEqual([15, 15]);
  });
});
