/**
 * Builders for engine specs: small rule sets with sensible defaults, and a Session that carries a customer's state
 * from one evaluation to the next, the way the service does between requests.
 */
import { compileRules } from './compile.js';
import type { CompiledRules } from './compiled.js';
import type { EngineExtensions } from './definitions.js';
import { evaluate, type EvaluateInput } from './evaluate.js';
import { CORE_EXTENSIONS } from './extensions.js';
import type { EvaluationResult } from './result.js';
import type {
  BehaviorRule,
  CampaignRule,
  CreativeRule,
  CustomerSnapshot,
  EventInstance,
  GoalRule,
  GroupRule,
  OfferRule,
  ProgressMap,
  RuleSet,
  TierRule,
  TierRules,
} from './types.js';

/** Monday 2026-01-05 10:00:00 UTC. */
export const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

let nextId = 1000;
const id = () => (nextId += 1);

export function goal(p: Partial<GoalRule> = {}): GoalRule {
  const name = p.name ?? 'visit';
  return {
    id: p.id ?? id(),
    name,
    eventName: p.eventName ?? name,
    type: 'count',
    uniqueAttribute: null,
    eventCount: 1,
    points: 0,
    required: false,
    criteria: [],
    minTimeBetweenEvents: null,
    minTimeBetweenEventsCount: 1,
    consecutive: false,
    ...p,
  };
}

export function group(goals: GoalRule[], goalCount = goals.length): GroupRule {
  return { goalCount, goals };
}

export function behavior(p: Partial<BehaviorRule> & { groups?: GroupRule[] } = {}): BehaviorRule {
  return {
    id: p.id ?? id(),
    campaignId: p.campaignId ?? 0,
    name: p.name ?? 'Behavior',
    tags: [],
    points: 0,
    period: null,
    maxTimesAchievable: null,
    maxTimesAchievablePerPeriod: null,
    maxTimesAchievablePerMonth: null,
    maxTimesAchievablePerYear: null,
    useSamePeriod: false,
    groups: [group([goal()])],
    outcomes: [],
    ...p,
  };
}

export function campaign(p: Partial<CampaignRule> = {}): CampaignRule {
  const campaignId = p.id ?? id();
  const behaviors = (p.behaviors ?? [behavior()]).map((b) => ({ ...b, campaignId }));
  return {
    id: campaignId,
    name: p.name ?? `Campaign ${campaignId}`,
    permalink: p.permalink ?? `campaign-${campaignId}`,
    status: 'live',
    startsAt: T0 - 30 * DAY,
    endsAt: T0 + 365 * DAY,
    divisionId: null,
    optInRequired: false,
    prerequisiteCampaignIds: [],
    targeting: [],
    ...p,
    budget: p.budget ?? null,
    behaviors,
  };
}

export function rules(
  p: { campaigns: CampaignRule[]; offers?: OfferRule[]; tiers?: TierRule[]; tierRules?: TierRules; creatives?: CreativeRule[]; divisionAncestors?: Record<number, number[]> },
  extensions: Partial<EngineExtensions> = {},
): CompiledRules {
  const set: RuleSet = { offers: [], tiers: [], creatives: [], divisionAncestors: { 1: [1] }, ...p };
  return compileRules(set, { ...CORE_EXTENSIONS, ...extensions });
}

/** A live push creative of campaign 10 (every status live, no targeting); `p` overrides members. */
export function creative(p: Partial<CreativeRule> = {}): CreativeRule {
  return {
    id: 40,
    campaignId: 10,
    behaviorId: null,
    adType: 'push',
    actionType: 'open_url',
    url: 'https://example.com/reward',
    message: 'You earned a coffee',
    payload: { coupon: 'COFFEE' },
    statuses: ['live', 'live', 'live'],
    targeting: [],
    ...p,
  };
}

export function customer(p: Partial<CustomerSnapshot> = {}): CustomerSnapshot {
  return {
    id: 'c1',
    timeZone: 'UTC',
    divisionId: 1,
    tags: [],
    attributes: {},
    availablePoints: 0,
    lifetimePoints: 0,
    tierId: null,
    qualifiedCampaignIds: [],
    completedCampaignIds: [],
    ...p,
  };
}

export function event(name: string, p: Partial<EventInstance> = {}): EventInstance {
  return { name, count: 1, attributes: {}, context: {}, occurredAt: T0, day: null, ...p };
}

type Options = Partial<Omit<EvaluateInput, 'rules' | 'customer' | 'progress' | 'events'>>;

/** One customer's life across several evaluations: each call starts from the state the last one left. */
export class Session {
  progress: ProgressMap = {};
  last!: EvaluationResult;

  constructor(
    readonly compiled: CompiledRules,
    public customer: CustomerSnapshot = customerFixture(),
  ) {}

  send(events: EventInstance | EventInstance[], options: Options = {}): EvaluationResult {
    const list = Array.isArray(events) ? events : [events];
    const now = options.now ?? Math.max(...list.map((e) => e.occurredAt), 0);
    this.last = evaluate({ rules: this.compiled, customer: this.customer, progress: this.progress, events: list, now, multiOrgEnabled: false, ...options });
    this.customer = this.last.customer;
    this.progress = { ...this.progress, ...this.last.progress };
    return this.last;
  }

  achieved(behaviorId: number): number {
    return this.progress[behaviorId]?.achieved ?? 0;
  }

  goalCount(behaviorId: number, goalId: number): number {
    return this.progress[behaviorId]?.goals[String(goalId)]?.count ?? 0;
  }
}

const customerFixture = customer;
