import type { EvaluationResult, ExtensionKind } from '../../engine/index.js';
import type { EventOutcome } from './write-plan.js';

/** An extension that threw while a campaign was evaluated, as answers and event rows carry it (decision 0025). */
export interface ExtensionFailureView {
  campaign_id: number;
  event_index: number;
  kind: ExtensionKind;
  extension: string;
  source: string;
}

/**
 * What an event row keeps of the evaluation of its instance: state, points and completions; and the explanation when
 * the request asked for it (explain=true). Storing every explanation costs about 10% of V1 throughput (docs/performance.md).
 */
export function eventResult(result: EvaluationResult, index: number, explain: boolean): { points: number; result: object } {
  const points = result.credits.filter((c) => c.eventIndex === index).reduce((sum, c) => sum + c.amount, 0);
  return {
    points,
    result: {
      state: result.state,
      points,
      completions: result.completions.filter((c) => c.eventIndex === index).map((c) => ({ campaign_id: c.campaignId, behavior_id: c.behaviorId, achieved: c.achieved })),
      ...(explain ? { explanation: result.explanation.filter((e) => e.event_index === index) } : {}),
      // A skip lasts the evaluation: every event of it names the campaigns skipped.
      ...(result.extensionFailures.length ? { extension_failures: extensionFailureViews(result) } : {}),
    },
  };
}

/** The campaigns an extension's failure skipped, as answers and event rows show them (`extension_failures`). */
export function extensionFailureViews(result: EvaluationResult): ExtensionFailureView[] {
  return result.extensionFailures.map((f) => ({ campaign_id: f.campaignId, event_index: f.eventIndex, kind: f.kind, extension: f.extension, source: f.source }));
}

/** What the event of a perform records: processed, whatever the campaigns' states (its domain action decided). */
export function processedOutcome(result: EvaluationResult, index: number, explain: boolean): EventOutcome {
  const { points, result: summary } = eventResult(result, index, explain);
  return { status: 'processed', reason: null, result: summary, pointsEarned: points };
}

/**
 * What an evaluated event row records: `stored` when an opt-in campaign listened and the customer had not qualified
 * (saved, not processed: contract §7), else `processed`, with the request's state as the reason when it did not
 * qualify, or `no_listening_campaign` when no live campaign listened.
 */
export function eventOutcome(result: EvaluationResult, index: number, explain: boolean): EventOutcome {
  const states = Object.values(result.campaignStates);
  const stored = states.includes('events_not_qualified') && !states.includes('qualified');
  const { points, result: summary } = eventResult(result, index, explain);
  return {
    status: stored ? 'stored' : 'processed',
    // A campaign that held the customer out (§20) is absent from the states, and the reason is its not_targeted_to_campaign.
    reason: states.length === 0 && result.state === 'events_not_qualified' ? 'no_listening_campaign' : result.state === 'qualified' ? null : result.state,
    result: summary,
    pointsEarned: points,
  };
}
