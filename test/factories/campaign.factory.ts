import type { INestApplication } from '@nestjs/common';
import { api, TestTenant } from './tenant.factory.js';

let counter = 0;

/** A campaign created through the management API (live by default, running from a day ago for a year). */
export async function createCampaign(app: INestApplication, tenant: TestTenant, campaign: Record<string, unknown> = {}) {
  counter += 1;
  const now = Date.now();
  const res = await api(app, tenant)
    .post('/management/campaigns')
    .send({
      campaign: {
        name: `Campaign ${counter}-${now}`,
        status: 'live',
        starts_at: new Date(now - 86_400_000).toISOString(),
        ends_at: new Date(now + 365 * 86_400_000).toISOString(),
        ...campaign,
      },
    })
    .expect(201);
  return res.body.campaign as { id: number; name: string; permalink: string; status: string; starts_at: string; ends_at: string; division_id: number };
}
