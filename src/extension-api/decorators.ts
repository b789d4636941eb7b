import type { Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';

/** What every extension says of itself: its name (how rules name it) and what it does. */
export interface ExtensionOptions {
  /** Lower case letters, digits and `_`, starting with a letter (at most 63 characters); unique within its kind. */
  name: string;
  description: string;
}

/** What @RewardKind says of a reward kind. */
export interface RewardKindOptions extends ExtensionOptions {
  /** The class of an outcome's arguments (class-validator and @nestjs/swagger decorators). */
  args?: Type<unknown>;
}

/** What @CriteriaOperator says of a criteria operator. */
export interface CriteriaOperatorOptions extends ExtensionOptions {
  /** The class of a criterion's `value` (class-validator and @nestjs/swagger decorators). */
  value?: Type<unknown>;
}

/** What @DomainAction says of a domain action. */
export interface DomainActionOptions extends ExtensionOptions {
  /** The class of perform's `args` for this domain (class-validator and @nestjs/swagger decorators). */
  args?: Type<unknown>;
  /** The tables of its own the action writes rows to (DomainActionDecision.rows); no other table is written. */
  tables?: string[];
}

/**
 * A domain action: a provider class extending DomainActionHandler. Its `name` is perform's `domain`; the built-in one is
 * complete_campaign.
 */
export const DomainAction = DiscoveryService.createDecorator<DomainActionOptions>();

/**
 * A reward kind: a provider class extending RewardKindHandler, in any module of the application. Its `name` is the
 * member of a behavior's `outcome_config` entry that awards it.
 */
export const RewardKind = DiscoveryService.createDecorator<RewardKindOptions>();

/** A criteria operator: a provider class extending CriteriaOperatorHandler. Its `name` is a criterion's `op`. */
export const CriteriaOperator = DiscoveryService.createDecorator<CriteriaOperatorOptions>();

/**
 * An event enricher: a provider class extending EventEnricherHandler, run on every event the API accepts (V1, V2,
 * perform) before it is stored, in the order the application found them.
 */
export const EventEnricher = DiscoveryService.createDecorator<ExtensionOptions>();
