import { timestampsView } from '../../common/http/timestamps.js';
import type { CreativeGroup } from '../../database/entities/index.js';
import type { CreativeGroupView } from './dto/creative-group.dto.js';

export function creativeGroupView(g: CreativeGroup): CreativeGroupView {
  return {
    id: g.id,
    line_item_id: g.lineItemId,
    name: g.name,
    display_name: g.displayName,
    status: g.status,
    starts_at: g.startsAt.toISOString(),
    ends_at: g.endsAt.toISOString(),
    targeting: g.targeting,
    ...timestampsView(g),
  };
}
