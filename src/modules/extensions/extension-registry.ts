import { Injectable, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { DiscoverableDecorator } from '@nestjs/core/discovery/discovery-service.js';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { CORE_OPERATORS, CORE_REWARDS, criteriaOperators, rewards, type CriteriaOperator as Operator, type EngineExtensions, type Reward } from '../../engine/index.js';
import { CriteriaOperator, RewardKind, type ExtensionOptions } from '../../extension-api/decorators.js';
import { CriteriaOperatorHandler, RewardKindHandler } from '../../extension-api/kinds.js';

/** An extension the application cannot start with: the message names the class, its module and what is wrong. */
export class ExtensionConfigError extends Error {
  override readonly name = 'ExtensionConfigError';
}

const NAME = /^[a-z][a-z0-9_]{0,62}$/;
/** Members every stored outcome has besides the one naming its reward kind. */
const RESERVED_REWARD_NAMES = new Set(['id', 'created_at', 'updated_at']);

/** One decorated provider as found: its options, its instance, and the module that provides it (its source). */
interface Found<T> {
  options: ExtensionOptions;
  handler: T;
  source: string;
}

/**
 * The extensions of this application, found at boot among the providers of every module (Nest's DiscoveryService, as
 * @nestjs/bullmq finds its processors), next to the built-ins: what the engine compiles rules with. A provider of the
 * wrong class, a name that is not valid or taken twice stops the application at boot with one line naming it.
 */
@Injectable()
export class ExtensionRegistry implements OnModuleInit {
  private collected: EngineExtensions | undefined;

  constructor(private readonly discovery: DiscoveryService) {}

  onModuleInit(): void {
    this.engine();
  }

  /** The criteria operators and reward kinds, the built-ins and the extensions', as the engine takes them. */
  engine(): EngineExtensions {
    return (this.collected ??= this.collect());
  }

  private collect(): EngineExtensions {
    const operators = this.find(CriteriaOperator, CriteriaOperatorHandler, 'criteria operator').map(
      ({ options, handler, source }): Operator => ({ name: options.name, source, test: handler.test.bind(handler) }),
    );
    const kinds = this.find(RewardKind, RewardKindHandler, 'reward kind').map(({ options, handler, source }): Reward => {
      if (RESERVED_REWARD_NAMES.has(options.name)) throw new ExtensionConfigError(`reward kind "${options.name}" (${source}): that name is a member every stored outcome has`);
      return {
        name: options.name,
        source,
        apply: handler.apply.bind(handler),
        points: handler.points?.bind(handler),
        raises: handler.raises?.bind(handler),
        creatives: handler.creatives?.bind(handler),
      };
    });
    try {
      return { operators: criteriaOperators([...CORE_OPERATORS.values(), ...operators]), rewards: rewards([...CORE_REWARDS.values(), ...kinds]) };
    } catch (error) {
      throw new ExtensionConfigError((error as Error).message);
    }
  }

  private find<T extends object>(decorator: DiscoverableDecorator<ExtensionOptions>, base: abstract new () => T, kind: string): Array<Found<T>> {
    return this.discovery.getProviders({ metadataKey: decorator.KEY }).map((wrapper) => {
      const options = this.discovery.getMetadataByDecorator(decorator, wrapper);
      const handler: unknown = wrapper.instance;
      const source = sourceOf(wrapper);
      const what = `${kind} ${className(wrapper)} (${source})`;
      if (!options || !NAME.test(options.name)) {
        throw new ExtensionConfigError(`${what}: its name ${JSON.stringify(options?.name)} must be lower case letters, digits and _, starting with a letter`);
      }
      if (!(handler instanceof base)) throw new ExtensionConfigError(`${what}: the class must extend ${base.name}`);
      return { options, handler, source };
    });
  }
}

/** The name of the module that provides the extension: what explanations and the listing call its source. */
function sourceOf(wrapper: InstanceWrapper): string {
  return (wrapper.host?.metatype as Type | undefined)?.name ?? 'unknown module';
}

function className(wrapper: InstanceWrapper): string {
  return (wrapper.instance as object | undefined)?.constructor?.name ?? String(wrapper.name);
}
