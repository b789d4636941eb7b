import { guardReward } from './bulkheads.js';
import type { CompiledBehavior, CompiledCampaign, CompiledGoal, CompiledOutcome, CompiledRules, TargetingSubject } from './compiled.js';
import { compileCriteria, extensionsHeld } from './criteria.js';
import type { CriteriaOperators, EngineExtensions } from './definitions.js';
import type { BehaviorRule, Criterion, EventInstance, RuleSet, RulesView } from './types.js';

function readInstance(instance: EventInstance, field: string): unknown {
  if (field === 'count') return instance.count;
  if (field.startsWith('context.')) return instance.context[field.slice('context.'.length)];
  if (field in instance.attributes) return instance.attributes[field];
  let value: unknown = instance.attributes;
  for (const part of field.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function readCustomer({ customer, tierName }: TargetingSubject, field: string): unknown {
  switch (field) {
    case 'user.tags':
      return customer.tags;
    case 'user.tier':
      return tierName;
    case 'user.division_id':
      return customer.divisionId;
    case 'user.lifetime_points':
      return customer.lifetimePoints;
    case 'user.available_points':
      return customer.availablePoints;
    default:
      return field.startsWith('user.attributes.') ? customer.attributes[field.slice('user.attributes.'.length)] : undefined;
  }
}

function groupNeeds(behavior: BehaviorRule): number[] {
  return behavior.groups.map((g) => Math.max(Math.min(g.goalCount, g.goals.length), g.goals.filter((goal) => goal.required).length));
}

/** `extensions`: the criteria operators and reward kinds registered (the built-ins, and any an extension defines). */
export function compileRules(rules: RuleSet, extensions: EngineExtensions): CompiledRules {
  const operators = extensions.operators;
  const tiers = [...rules.tiers].sort((a, b) => a.minPoints - b.minPoints || a.id - b.id);
  const compiled: CompiledRules = {
    campaigns: new Map(),
    behaviors: new Map(),
    listeners: new Map(),
    campaignsListening: new Map(),
    experiments: [],
    offers: new Map(rules.offers.map((o) => [o.id, o])),
    tiers,
    tierRules: rules.tierRules ?? { policy: { basis: 'lifetime' }, timeZone: 'UTC', policyChangedAt: null },
    rankedTiers: tiers.map((t) => ({ id: t.id, name: t.name, minPoints: t.minPoints, retainPoints: t.retainPoints ?? t.minPoints })),
    divisionAncestors: rules.divisionAncestors,
  };
  const creatives = new Map(rules.creatives.map((c) => [c.id, { rule: c, targets: compileCriteria(c.targeting, readCustomer, operators, `creative ${c.id} targeting`) }]));

  for (const campaignRule of rules.campaigns) {
    const campaign: CompiledCampaign = {
      rule: campaignRule,
      targets: compileCriteria(campaignRule.targeting, readCustomer, operators, `campaign ${campaignRule.id} targeting`),
      targetingHeld: extensionsHeld(campaignRule.targeting, operators),
      behaviors: [],
      listening: new Map(),
    };
    compiled.campaigns.set(campaignRule.id, campaign);
    if (campaignRule.experiment && campaignRule.experiment.endedAt === null) compiled.experiments.push(campaign);
    for (const behaviorRule of campaignRule.behaviors) {
      const creativeIds = new Set(rules.creatives.filter((c) => c.behaviorId === behaviorRule.id).map((c) => c.id));
      const raises: string[] = [];
      const outcomes = behaviorRule.outcomes.map((o, index): CompiledOutcome => {
        // Arguments frozen: every evaluation shares them through the compiled rules, and a reward may not change them.
        const args = deepFreeze(o.args);
        const registered = extensions.rewards.get(o.kind);
        if (!registered) return { kind: o.kind, args, reward: undefined };
        const guarded = guardReward(registered, args, `behavior ${behaviorRule.id} outcome ${index + 1}`);
        raises.push(...guarded.raises);
        for (const id of guarded.creatives) creativeIds.add(id);
        return { kind: o.kind, args, reward: guarded.reward };
      });
      const behavior: CompiledBehavior = { rule: behaviorRule, campaign, goals: [], groupNeeds: groupNeeds(behaviorRule), creatives: [], outcomes, raises };
      for (const id of creativeIds) {
        const creative = creatives.get(id);
        if (creative && creative.rule.campaignId === campaignRule.id) behavior.creatives.push(creative);
      }
      behaviorRule.groups.forEach((group, groupIndex) => {
        for (const goalRule of group.goals) {
          const goal: CompiledGoal = {
            rule: goalRule,
            key: String(goalRule.id),
            groupIndex,
            behavior,
            matches: compileCriteria(goalRule.criteria, readInstance, operators, `goal ${goalRule.id}`),
            held: extensionsHeld(goalRule.criteria, operators),
          };
          behavior.goals.push(goal);
          const list = compiled.listeners.get(goalRule.eventName) ?? [];
          list.push(goal);
          compiled.listeners.set(goalRule.eventName, list);
          const behaviors = campaign.listening.get(goalRule.eventName) ?? new Map<CompiledBehavior, CompiledGoal[]>();
          behaviors.set(behavior, [...(behaviors.get(behavior) ?? []), goal]);
          campaign.listening.set(goalRule.eventName, behaviors);
        }
      });
      campaign.behaviors.push(behavior);
      compiled.behaviors.set(behaviorRule.id, behavior);
    }
    for (const name of campaign.listening.keys()) {
      compiled.campaignsListening.set(name, [...(compiled.campaignsListening.get(name) ?? []), campaign]);
    }
  }
  return compiled;
}

export const MAX_EVENT_DEPTH = 5;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/**
 * The compiled rules behind their view: an extension hands back those it was given (a domain action's `involved`), and
 * the engine compiles no others.
 */
export function compiledFrom(rules: RulesView): CompiledRules {
  if (!('campaignsListening' in rules)) throw new TypeError('not rules the engine compiled: pass on the rules involved() was given');
  return rules as CompiledRules;
}

/** The campaigns with a goal listening to the name, in rule order; when scoped, the scoped campaign alone (listening or not). */
export function campaignsListeningTo(rules: CompiledRules, name: string, scoped: number | null): CompiledCampaign[] {
  if (scoped === null) return rules.campaignsListening.get(name) ?? [];
  const campaign = rules.campaigns.get(scoped);
  return campaign ? [campaign] : [];
}

/**
 * The behaviors whose progress an evaluation of these event names may read or write: every behavior of a campaign
 * with a listening goal (campaign caps and completion look at all of them), followed through event outcomes. `rules`:
 * those compileRules made.
 */
export function behaviorsInvolved(rules: RulesView, eventNames: string[]): number[] {
  const { campaignsListening } = compiledFrom(rules);
  const involved = new Set<number>();
  let names = new Set(eventNames);
  const seenNames = new Set<string>();
  for (let depth = 0; depth <= MAX_EVENT_DEPTH && names.size > 0; depth += 1) {
    const next = new Set<string>();
    for (const name of names) {
      if (seenNames.has(name)) continue;
      seenNames.add(name);
      for (const campaign of campaignsListening.get(name) ?? []) {
        for (const behavior of campaign.behaviors) {
          involved.add(behavior.rule.id);
          for (const name of behavior.raises) next.add(name);
        }
      }
    }
    names = next;
  }
  return [...involved].sort((a, b) => a - b);
}

/** Targeting criteria (campaign or creative group) as a predicate on a customer: true when every criterion holds. */
export function compileTargeting(criteria: Criterion[], operators: CriteriaOperators): (subject: TargetingSubject) => boolean {
  const predicate = compileCriteria(criteria, readCustomer, operators);
  return (subject) => predicate(subject) === null;
}
