import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { pageWindow, PageQuery } from '../../common/http/pagination.dto.js';
import type { NotificationView } from './dto/notification.dto.js';

interface NotificationRow {
  id: string;
  event_id: string | null;
  type: string;
  campaign_id: number;
  behavior_name: string;
  data: NotificationView['data'];
}

const SELECT = `SELECT n.id, n.event_id, n.type, n.campaign_id, b.name AS behavior_name, n.data
                  FROM notifications n JOIN behaviors b ON b.id = n.behavior_id`;

/** The notifications stored for a customer (triggered creatives, contract §11), as the V1 answer shows them. */
@Injectable()
export class NotificationsService {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** A page of the customer's notifications, newest first. */
  async ofCustomer(organizationId: number, customerId: string, query: PageQuery): Promise<NotificationView[]> {
    const { take, skip } = pageWindow(query);
    const rows: NotificationRow[] = await this.db.query(
      `${SELECT} WHERE n.organization_id = $1 AND n.customer_id = $2 ORDER BY n.created_at DESC, n.id DESC LIMIT $3 OFFSET $4`,
      [organizationId, customerId, take, skip],
    );
    return rows.map(view);
  }

  /** The notifications each of these events of the customer produced, by event id, in the order they were produced. */
  async ofEvents(organizationId: number, customerId: string, eventIds: string[]): Promise<Map<string, NotificationView[]>> {
    const byEvent = new Map<string, NotificationView[]>();
    if (eventIds.length === 0) return byEvent;
    const rows: NotificationRow[] = await this.db.query(
      `${SELECT} WHERE n.organization_id = $1 AND n.customer_id = $2 AND n.event_id = ANY($3::bigint[]) ORDER BY n.id`,
      [organizationId, customerId, eventIds],
    );
    for (const row of rows) byEvent.set(row.event_id!, [...(byEvent.get(row.event_id!) ?? []), view(row)]);
    return byEvent;
  }
}

function view(row: NotificationRow): NotificationView {
  return { id: Number(row.id), type: row.type, campaign_id: row.campaign_id, behavior_name: row.behavior_name, data: row.data };
}
