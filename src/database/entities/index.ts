import { ApiKey } from './api-key.entity.js';
import { Application } from './application.entity.js';
import { AuditEntry } from './audit-entry.entity.js';
import { Behavior } from './behavior.entity.js';
import { Campaign } from './campaign.entity.js';
import { Creative } from './creative.entity.js';
import { CreativeGroup } from './creative-group.entity.js';
import { Customer } from './customer.entity.js';
import { Division } from './division.entity.js';
import { EventRecord } from './event.entity.js';
import { LineItem } from './line-item.entity.js';
import { Offer } from './offer.entity.js';
import { Organization } from './organization.entity.js';
import { Tier } from './tier.entity.js';

export { ApiKey, Application, AuditEntry, Behavior, Campaign, Creative, CreativeGroup, Customer, Division, EventRecord, LineItem, Offer, Organization, Tier };
export const entities = [ApiKey, Application, AuditEntry, Behavior, Campaign, Creative, CreativeGroup, Customer, Division, EventRecord, LineItem, Offer, Organization, Tier];
