import { Inject, Injectable, Optional, SetMetadata, type OnModuleInit, type Type } from '@nestjs/common';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { DiscoveryService } from '@nestjs/core';
import type { DiscoverableDecorator } from '@nestjs/core/discovery/discovery-service.js';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { byName, CORE_OPERATORS, CORE_REWARDS, criteriaOperators, rewards, type EngineExtensions, type OperatorDefinition as Operator, type Reward } from '../../engine/index.js';
import { objectCheck, useExtensionChecks, valueCheck, type ArgsCheck } from '../../common/validation/extension-checks.js';
import { isPrototypeKey } from '../../common/validation/reserved-names.js';
import { ConfigError } from '../../config/config.js';
import { isServiceTable } from '../../database/service-tables.js';
import { OUTCOME_BOOKKEEPING } from '../../database/entities/behavior.entity.js';
import { CriteriaOperator, DomainAction, EventEnricher, RewardKind, type CriteriaOperatorOptions, type DomainActionOptions, type ExtensionOptions, type RewardKindOptions } from '../../extension-api/decorators.js';
import { CriteriaOperatorHandler, DomainActionHandler, EventEnricherHandler, RewardKindHandler } from '../../extension-api/kinds.js';

/**
 * An extension the application cannot start with: the message names the class, its module and what is wrong. A
 * configuration error: the process stops with that one line.
 */
export class ExtensionConfigError extends ConfigError {
  override readonly name = 'ExtensionConfigError';
}

const BUILT_IN = 'campaign-engine:built-in';

/**
 * Marks a module whose decorated providers are the service's own built-ins: defined as a team's would be, found the
 * same way, named `core` as their source, listed before the extensions and not among them.
 */
export const BuiltIn = (): ClassDecorator => SetMetadata(BUILT_IN, true);

/** The source of the built-ins. */
const CORE = 'core';

const NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** A table a domain action writes: a plain, unquoted PostgreSQL name (schema-qualified or not). */
const TABLE = /^([a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,62}$/;

/** One decorated provider as found: its options, its instance, and the module that provides it (its source). */
interface Found<T, O> {
  options: O;
  handler: T;
  source: string;
}

/** An extension as its decorator describes it. */
export interface ExtensionDefinition {
  name: string;
  source: string;
  description: string;
  /** Its arguments' class (reward kinds) or its value's (criteria operators), when it has one. */
  model: Type | undefined;
}

/** The extensions of the application, by kind (the built-ins are not among them). */
export interface ExtensionDefinitions {
  domainActions: ExtensionDefinition[];
  rewardKinds: ExtensionDefinition[];
  criteriaOperators: ExtensionDefinition[];
  eventEnrichers: ExtensionDefinition[];
}

/** An event enricher as found: its name, its module and its handler. */
export interface Enricher {
  name: string;
  source: string;
  handler: EventEnricherHandler;
}

/** A domain action, built in or an extension's: perform's `domain`. */
export interface Domain {
  name: string;
  source: string;
  description: string;
  handler: DomainActionHandler;
  /** What is wrong with perform's `args` for it (empty when they are valid). */
  check: ArgsCheck;
  /** The tables its rows may go to. */
  tables: readonly string[];
  /** The class of its args, when it has one. */
  model: Type | undefined;
}

/**
 * A reward kind's arguments or a criteria operator's value, as rules store them: how a write checks them (the class's
 * write-time check) and the extension's `upgrade` of a stored one the class refuses, when it has one
 * (stale-arguments.ts, decision 0027).
 */
export interface ExtensionArguments {
  kind: 'reward_kind' | 'criteria_operator';
  name: string;
  source: string;
  check: ArgsCheck;
  upgrade: ((stored: unknown) => unknown) | undefined;
}

/** The extensions' reward kinds and criteria operators (not the built-ins), by name. */
export interface ArgumentsByName {
  rewards: ReadonlyMap<string, ExtensionArguments>;
  operators: ReadonlyMap<string, ExtensionArguments>;
}

interface Collected {
  engine: EngineExtensions;
  arguments: ArgumentsByName;
  definitions: ExtensionDefinitions;
  enrichers: Enricher[];
  domains: ReadonlyMap<string, Domain>;
  effects: ReadonlyMap<string, { source: string; handler: RewardKindHandler }>;
}

/**
 * The extensions of this application, found at boot among the providers of every module (Nest's DiscoveryService, as
 * @nestjs/bullmq finds its processors), next to the built-ins: what the engine compiles rules with. A provider of the
 * wrong class, a name that is not valid or taken twice stops the application at boot with one line naming it.
 */
@Injectable()
export class ExtensionRegistry implements OnModuleInit {
  private collected: Collected | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    @Optional() @Inject(LOGGER) private readonly logger?: Logger,
  ) {}

  onModuleInit(): void {
    this.engine();
    const { domainActions, rewardKinds, criteriaOperators, eventEnrichers } = this.definitions();
    const names = (list: ExtensionDefinition[]) => list.map((d) => `${d.name} (${d.source})`);
    if (domainActions.length + rewardKinds.length + criteriaOperators.length + eventEnrichers.length > 0) {
      this.logger?.info(
        { domain_actions: names(domainActions), reward_kinds: names(rewardKinds), criteria_operators: names(criteriaOperators), event_enrichers: names(eventEnrichers) },
        'extensions loaded',
      );
    }
  }

  /** The criteria operators and reward kinds, the built-ins and the extensions', as the engine takes them. */
  engine(): EngineExtensions {
    return (this.collected ??= this.collect()).engine;
  }

  /** The extensions, as their decorators describe them: what the OpenAPI document and the listing add. */
  definitions(): ExtensionDefinitions {
    return (this.collected ??= this.collect()).definitions;
  }

  /** The event enrichers, in the order they run. */
  enrichers(): readonly Enricher[] {
    return (this.collected ??= this.collect()).enrichers;
  }

  /** The reward kinds with an after-commit effect, by name: what the workers run an effect with. */
  effects(): ReadonlyMap<string, { source: string; handler: RewardKindHandler }> {
    return (this.collected ??= this.collect()).effects;
  }

  /** The extensions' reward kinds and criteria operators with their write-time checks and upgrades, by name. */
  arguments(): ArgumentsByName {
    return (this.collected ??= this.collect()).arguments;
  }

  /** The domain actions perform knows, the built-in first, by name. */
  domains(): ReadonlyMap<string, Domain> {
    return (this.collected ??= this.collect()).domains;
  }

  /** The classes of the extensions' arguments and values: models the OpenAPI document must hold. */
  models(): Type[] {
    const { domainActions, rewardKinds, criteriaOperators } = this.definitions();
    return [...domainActions, ...rewardKinds, ...criteriaOperators].flatMap((d) => (d.model ? [d.model] : []));
  }

  private collect(): Collected {
    const found = this.find<DomainActionHandler, DomainActionOptions>(DomainAction, DomainActionHandler, 'domain action');
    const builtIns = found.filter(({ source }) => source === CORE);
    const actions = found.filter(({ source }) => source !== CORE);
    const operators = this.find<CriteriaOperatorHandler, CriteriaOperatorOptions>(CriteriaOperator, CriteriaOperatorHandler, 'criteria operator');
    const allKinds = this.find<RewardKindHandler, RewardKindOptions>(RewardKind, RewardKindHandler, 'reward kind');
    // The built-in reward kinds' providers (the campaigns module's) declare the engine's own, CORE_REWARDS, which the
    // engine compiles with in every process, that module imported or not: they are not among the extensions.
    const kinds = allKinds.filter(({ source }) => source !== CORE);
    for (const { options } of allKinds.filter(({ source }) => source === CORE)) {
      if (!CORE_REWARDS.has(options.name)) throw new ExtensionConfigError(`reward kind "${options.name}" (core): the engine has no built-in reward kind of that name`);
    }
    const enrichers = this.find<EventEnricherHandler, ExtensionOptions>(EventEnricher, EventEnricherHandler, 'event enricher');
    for (const { options, source } of kinds) {
      if (OUTCOME_BOOKKEEPING.includes(options.name)) throw new ExtensionConfigError(`reward kind "${options.name}" (${source}): that name is a member every stored outcome has`);
    }
    for (const { options, source } of actions) {
      const table = (options.tables ?? []).find((t) => !TABLE.test(t));
      if (table !== undefined) throw new ExtensionConfigError(`domain action "${options.name}" (${source}): table ${JSON.stringify(table)} must be a plain lower case name (schema.table or table)`);
      const own = (options.tables ?? []).find(isServiceTable);
      if (own !== undefined) throw new ExtensionConfigError(`domain action "${options.name}" (${source}): table "${own}" is the service's own; an extension writes tables of its own`);
    }
    let engine: EngineExtensions;
    let domains: ReadonlyMap<string, Domain>;
    try {
      byName('event enricher', enrichers.map(({ options, source }) => ({ name: options.name, source })));
      domains = byName('domain action', [...builtIns, ...actions].map(({ options, source, handler }) => domain(options, source, handler)));
      engine = {
        operators: criteriaOperators([...CORE_OPERATORS.values(), ...operators.map(({ options, handler, source }): Operator => ({ name: options.name, source, description: options.description, test: handler.test.bind(handler) }))]),
        rewards: rewards([...CORE_REWARDS.values(), ...kinds.map(({ options, handler, source }) => reward(options, source, handler))]),
      };
    } catch (error) {
      throw new ExtensionConfigError((error as Error).message);
    }
    // What a behavior or a criterion naming them is checked with when it is written (and a stored one, stale-arguments.ts).
    const args: ArgumentsByName = {
      rewards: new Map(kinds.map(({ options, source, handler }) => [options.name, { kind: 'reward_kind', name: options.name, source, check: objectCheck(options.args), upgrade: handler.upgrade?.bind(handler) }])),
      operators: new Map(operators.map(({ options, source, handler }) => [options.name, { kind: 'criteria_operator', name: options.name, source, check: valueCheck(options.value), upgrade: handler.upgrade?.bind(handler) }])),
    };
    useExtensionChecks({
      rewards: new Map([...args.rewards].map(([name, a]) => [name, a.check])),
      operators: new Map([...args.operators].map(([name, a]) => [name, a.check])),
      rewardKinds: engine.rewards,
    });
    const describe = ({ options, source }: Found<unknown, ExtensionOptions>, model: Type | undefined): ExtensionDefinition => ({ name: options.name, source, description: options.description, model });
    return {
      engine,
      arguments: args,
      domains,
      effects: new Map(kinds.filter(({ handler }) => typeof handler.afterCommit === 'function').map(({ options, source, handler }) => [options.name, { source, handler }])),
      definitions: {
        domainActions: actions.map((found) => describe(found, found.options.args)),
        rewardKinds: kinds.map((found) => describe(found, found.options.args)),
        criteriaOperators: operators.map((found) => describe(found, found.options.value)),
        eventEnrichers: enrichers.map((found) => describe(found, undefined)),
      },
      enrichers: enrichers.map(({ options, handler, source }) => ({ name: options.name, source, handler })),
    };
  }

  private find<T extends object, O extends ExtensionOptions>(decorator: DiscoverableDecorator<O>, base: abstract new () => T, kind: string): Array<Found<T, O>> {
    return this.discovery.getProviders({ metadataKey: decorator.KEY }).map((wrapper) => {
      const options = this.discovery.getMetadataByDecorator(decorator, wrapper);
      const handler: unknown = wrapper.instance;
      const source = sourceOf(wrapper);
      const what = `${kind} ${className(wrapper)} (${source})`;
      if (!options || !NAME.test(options.name) || isPrototypeKey(options.name)) {
        throw new ExtensionConfigError(`${what}: its name ${JSON.stringify(options?.name)} must be lower case letters, digits and _, starting with a letter, and not a member every object has (constructor)`);
      }
      if (!(handler instanceof base)) throw new ExtensionConfigError(`${what}: the class must extend ${base.name}`);
      return { options, handler, source };
    });
  }
}

/** The name of the module that provides the extension: what explanations and the listing call its source. */
function sourceOf(wrapper: InstanceWrapper): string {
  const module = wrapper.host?.metatype as Type | undefined;
  if (module && Reflect.getMetadata(BUILT_IN, module) === true) return CORE;
  return module?.name ?? 'unknown module';
}

function className(wrapper: InstanceWrapper): string {
  return (wrapper.instance as object | undefined)?.constructor?.name ?? String(wrapper.name);
}

/** A reward kind's handler as the engine takes it: its methods bound to the provider. */
function reward({ name, description }: ExtensionOptions, source: string, handler: RewardKindHandler): Reward {
  return {
    name,
    source,
    description,
    apply: handler.apply.bind(handler),
    points: handler.points?.bind(handler),
    raises: handler.raises?.bind(handler),
    creatives: handler.creatives?.bind(handler),
    effects: typeof handler.afterCommit === 'function',
  };
}

function domain(options: DomainActionOptions, source: string, handler: DomainActionHandler): Domain {
  const check = options.args ? objectCheck(options.args) : noArgs;
  return { name: options.name, source, description: options.description, handler, check, tables: options.tables ?? [], model: options.args };
}

/** A domain action without an args class takes none: an empty object at most. */
const noArgs: ArgsCheck = (value) => {
  const problems = objectCheck(undefined)(value);
  for (const member of Object.keys(problems[''] ? {} : (value as object))) problems[member] = 'is not a known attribute (this domain takes no args)';
  return problems;
};
