import { timestampsView } from '../../common/http/timestamps.js';
import type { Creative } from '../../database/entities/index.js';
import type { IssueAudienceCsv } from '../../database/entities/creative.entity.js';
import { ssapName } from './creative-types.js';
import type { CreativeView, IssueAudienceCsvView } from './dto/creative.dto.js';

/** The delivery settings as answered: the stored request members plus the seed's response-only members. */
export function issueAudienceCsvView(stored: IssueAudienceCsv): IssueAudienceCsvView {
  const text = (key: string) => (typeof stored[key] === 'string' ? (stored[key] as string) : null);
  return {
    delivery_method: stored.delivery_method,
    scheduled_delivery_date: stored.scheduled_delivery_date ?? null,
    template_id: stored.template_id ?? null,
    behavior_id: stored.behavior_id ?? null,
    issue_offer_date: text('issue_offer_date'),
    next_ad_type: text('next_ad_type'),
    offer_ids: Array.isArray(stored.offer_ids) ? (stored.offer_ids as number[]) : [],
    orientation: text('orientation'),
    portal_description: text('portal_description'),
    portal_icon: text('portal_icon'),
    second_sn_audience_guid: text('second_sn_audience_guid'),
    trigger_type: stored.delivery_method,
  };
}

export function creativeView(c: Creative): CreativeView {
  return {
    id: c.id,
    creative_group_id: c.creativeGroupId,
    name: c.name,
    status: c.status,
    ad_type: c.adType,
    creative_type: c.creativeType,
    application_id: c.applicationId,
    ssap_name: ssapName(c.creativeType),
    message: c.message,
    url: c.url,
    payload: c.payload,
    issue_audience_csv: issueAudienceCsvView(c.issueAudienceCsv),
    ...timestampsView(c),
  };
}
