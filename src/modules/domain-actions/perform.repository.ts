import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { CampaignKey } from '../events/index.js';
import type { PerformCreative, PerformOffer } from './dto/perform.dto.js';

export interface CampaignRow {
  id: number;
  name: string;
  permalink: string;
  status: string;
  starts_at: Date;
  ends_at: Date;
}

/** The reads of perform beside the evaluation's own (customer, progress) and write (evaluation/evaluation.repository.ts). */
@Injectable()
export class PerformRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The organization's campaign the path names, whatever its status; null when missing or soft-deleted. */
  async campaign(organizationId: number, key: CampaignKey): Promise<CampaignRow | null> {
    const rows: CampaignRow[] = await this.db.query(
      `SELECT id, name, permalink, status, starts_at, ends_at FROM campaigns
        WHERE organization_id = $1 AND ${'id' in key ? 'id = $2' : 'permalink = $2'} AND deleted_at IS NULL`,
      [organizationId, 'id' in key ? key.id : key.permalink],
    );
    return rows[0] ?? null;
  }

  /** Offers the campaign has issued to the customer, oldest first. */
  async offers(customerId: string, campaignId: number): Promise<PerformOffer[]> {
    const rows: Array<Omit<PerformOffer, 'issued_at' | 'id'> & { id: string; issued_at: Date }> = await this.db.query(
      `SELECT co.id, co.offer_id, o.name, o.description, o.points, co.behavior_id, co.issued_at
         FROM customer_offers co JOIN offers o ON o.id = co.offer_id
        WHERE co.customer_id = $1 AND co.campaign_id = $2
        ORDER BY co.id`,
      [customerId, campaignId],
    );
    return rows.map((r) => ({ ...r, id: Number(r.id), issued_at: r.issued_at.toISOString() }));
  }

  /** The campaign's active creatives (contract §11: the creative, its group and its line item live; the campaign is checked by the caller). */
  async activeCreatives(organizationId: number, campaignId: number): Promise<PerformCreative[]> {
    return this.db.query(
      `SELECT cr.id, cr.name, cr.status, cr.ad_type, cr.creative_type, cr.creative_group_id,
              cr.issue_audience_csv->>'delivery_method' AS delivery_method, cr.message, cr.url, cr.payload
         FROM creatives cr
         JOIN creative_groups g ON g.id = cr.creative_group_id AND g.deleted_at IS NULL AND g.status = 'live'
         JOIN line_items li ON li.id = g.line_item_id AND li.deleted_at IS NULL AND li.status = 'live'
        WHERE cr.organization_id = $1 AND li.campaign_id = $2 AND cr.deleted_at IS NULL AND cr.status = 'live'
        ORDER BY cr.id`,
      [organizationId, campaignId],
    );
  }
}
