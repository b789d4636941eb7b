import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { api, TestTenant } from './tenant.factory.js';

const DAY = 86_400_000;

/**
 * A live line item, creative group (everyone) and triggered push creative for `behaviorId`, through the management
 * API: each completion of the behavior then yields one notification. `content` adds or replaces creative members
 * (message, url, payload; or name, ad_type and creative_type for another kind). Answers the creative's id.
 */
export async function createTriggeredCreative(
  app: INestApplication,
  tenant: TestTenant,
  campaignId: number,
  behaviorId: number,
  content: { message?: string; url?: string; payload?: Record<string, unknown>; name?: string; ad_type?: string; creative_type?: string } = {},
): Promise<number> {
  const window = { starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
  const lineItem = await api(app, tenant)
    .post(`/management/campaigns/${campaignId}/line_items`)
    .send({ line_item: { name: 'Main', status: 'live', ...window } })
    .expect(201);
  const group = await api(app, tenant)
    .post(`/management/line_items/${lineItem.body.line_items[0].id}/creative_groups`)
    .send({ creative_group: { name: 'Everyone', status: 'live', ...window } })
    .expect(201);
  const [application] = (await app.get(DataSource).query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [tenant.organizationId])) as Array<{
    id: number;
  }>;
  const creative = await api(app, tenant)
    .post(`/management/creative_groups/${group.body.creative_groups[0].id}/creatives`)
    .send({
      creative: {
        name: 'Push',
        status: 'live',
        ad_type: 'push_message',
        creative_type: 'messaging-platform-push',
        application_id: application.id,
        ...content,
        issue_audience_csv: { delivery_method: 'triggered', behavior_id: behaviorId },
      },
    })
    .expect(201);
  return creative.body.creatives[0].id as number;
}
