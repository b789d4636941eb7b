/**
 * The seed's ad types and creative types, which creative types each ad type allows, and the display name of the
 * platform (ssap_name) of each creative type. docs/creatives.md carries the same table.
 */
export const AD_TYPES = [
  'issue_audience_csv',
  'issue_audience_csv_no_msg',
  'issue_bulk_offer',
  'audience_export',
  'messaging_platform',
  'email_message',
  'push_message',
] as const;
export type AdType = (typeof AD_TYPES)[number];

export const CREATIVE_TYPES = [
  'issue-audience-csv',
  'issue-audience-csv-no-msg',
  'issue-bulk-offer',
  'audience-export-vendor1',
  'audience-export-vendor2',
  'audience-export-vendor3',
  'audience-export-vendor4',
  'messaging-platform-external',
  'messaging-platform-email',
  'messaging-platform-push',
] as const;
export type CreativeType = (typeof CREATIVE_TYPES)[number];

export const CREATIVE_TYPES_BY_AD_TYPE: Record<AdType, readonly CreativeType[]> = {
  issue_audience_csv: ['issue-audience-csv'],
  issue_audience_csv_no_msg: ['issue-audience-csv-no-msg'],
  issue_bulk_offer: ['issue-bulk-offer'],
  audience_export: ['audience-export-vendor1', 'audience-export-vendor2', 'audience-export-vendor3', 'audience-export-vendor4'],
  messaging_platform: ['messaging-platform-external'],
  email_message: ['messaging-platform-email'],
  push_message: ['messaging-platform-push'],
};

export const SSAP_NAMES: Record<CreativeType, string> = {
  'issue-audience-csv': 'Email file export',
  'issue-audience-csv-no-msg': 'Audience file (no message)',
  'issue-bulk-offer': 'Bulk offer',
  'audience-export-vendor1': 'Audience export (vendor 1)',
  'audience-export-vendor2': 'Audience export (vendor 2)',
  'audience-export-vendor3': 'Audience export (vendor 3)',
  'audience-export-vendor4': 'Audience export (vendor 4)',
  'messaging-platform-external': 'External messaging',
  'messaging-platform-email': 'Email',
  'messaging-platform-push': 'Push',
};

export const DELIVERY_METHODS = ['triggered', 'scheduled'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

export function allowsCreativeType(adType: string, creativeType: string): boolean {
  return (CREATIVE_TYPES_BY_AD_TYPE[adType as AdType] as readonly string[] | undefined)?.includes(creativeType) ?? false;
}

export function ssapName(creativeType: string): string {
  return SSAP_NAMES[creativeType as CreativeType] ?? creativeType;
}
