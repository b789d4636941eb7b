import { timestampsView } from '../../../common/http/timestamps.js';
import type { LineItem } from '../../../database/entities/index.js';
import type { LineItemView } from './dto/line-item.dto.js';

export function lineItemView(l: LineItem): LineItemView {
  return {
    id: l.id,
    campaign_id: l.campaignId,
    name: l.name,
    display_name: l.displayName,
    description: l.description,
    status: l.status,
    starts_at: l.startsAt.toISOString(),
    ends_at: l.endsAt.toISOString(),
    ...timestampsView(l),
  };
}
