import { ApiKey } from './api-key.entity.js';
import { Application } from './application.entity.js';
import { Customer } from './customer.entity.js';
import { Division } from './division.entity.js';
import { EventRecord } from './event.entity.js';
import { Organization } from './organization.entity.js';
import { Tier } from './tier.entity.js';

export { ApiKey, Application, Customer, Division, EventRecord, Organization, Tier };
export const entities = [ApiKey, Application, Customer, Division, EventRecord, Organization, Tier];
