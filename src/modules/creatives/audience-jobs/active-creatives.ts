/**
 * The scheduled creatives of an organization that are active (contract §11: the creative, its group, its line item and
 * its campaign all `live`, none deleted), with their delivery date. `$1` is the organization id.
 */
export const ACTIVE_SCHEDULED_CREATIVES = `
  SELECT c.id AS creative_id, (c.issue_audience_csv->>'scheduled_delivery_date')::timestamptz AS scheduled_at
    FROM creatives c
    JOIN creative_groups g ON g.id = c.creative_group_id AND g.deleted_at IS NULL AND g.status = 'live'
    JOIN line_items l ON l.id = g.line_item_id AND l.deleted_at IS NULL AND l.status = 'live'
    JOIN campaigns k ON k.id = l.campaign_id AND k.deleted_at IS NULL AND k.status = 'live'
   WHERE c.organization_id = $1 AND c.deleted_at IS NULL AND c.status = 'live'
     AND c.issue_audience_csv->>'delivery_method' = 'scheduled'
     AND c.issue_audience_csv->>'scheduled_delivery_date' IS NOT NULL`;
