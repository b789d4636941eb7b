import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../common/errors/app-error.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import type { EnrichableEvent, EnrichContext } from '../../extension-api/kinds.js';
import { eventNameProblem, membersProblem } from '../../common/validation/event-limits.js';
import { callExtension } from './extension-call.js';
import { ExtensionFailures } from './extension-failures.js';
import { ExtensionRegistry, type Enricher } from './extension-registry.js';

/**
 * Runs the registered event enrichers on the events of one request, before they are stored (V1, V2, perform). With no
 * enricher it answers null at once, so that the event path awaits nothing. An enricher that throws answers 500
 * internal_error, one slower than EXTENSION_TIMEOUT_MS 503 service_unavailable, and one that leaves an event the
 * service would refuse (a name or context.division_id changed, a member over the limits, a context value that is not flat, attributes on a V2
 * event) 500 internal_error, each naming the enricher: nothing of the request is stored. Each enricher's context has a
 * signal of its own, aborted at its deadline (callExtension), for the enricher to stop its I/O with.
 */
@Injectable()
export class EventEnrichment {
  constructor(
    private readonly registry: ExtensionRegistry,
    private readonly failures: ExtensionFailures,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether any enricher is registered. */
  get active(): boolean {
    return this.registry.enrichers().length > 0;
  }

  /** `context` without its signal: each enricher gets a signal of its own, aborted at its deadline. */
  enrich(events: EnrichableEvent[], context: Omit<EnrichContext, 'signal'>): Promise<void> | null {
    return this.active && events.length > 0 ? this.run(this.registry.enrichers(), events, context) : null;
  }

  private async run(enrichers: readonly Enricher[], events: EnrichableEvent[], context: Omit<EnrichContext, 'signal'>): Promise<void> {
    const before = events.map((e) => ({ name: e.name, division: e.context.division_id }));
    for (const enricher of enrichers) {
      const what = `event enricher "${enricher.name}" (${enricher.source})`;
      const failed = (error: unknown, message: string) =>
        this.failures.record(context.organizationId, [{ kind: 'event_enricher', extension: enricher.name, source: enricher.source, call: 'enrich', at: `${context.source} events`, message, error }]);
      await callExtension(what, this.config.extensionTimeoutMs, (signal) => enricher.handler.enrich(events, { ...context, signal }), failed);
      events.forEach((event, i) => {
        const problem = eventProblem(event, before[i], context.source);
        if (problem) throw new AppError('internal_error', `${what} left event ${i} (${before[i].name}) invalid: ${problem}`);
      });
    }
  }
}

function eventProblem(event: EnrichableEvent, before: { name: string; division: unknown }, source: EnrichContext['source']): string | null {
  if (event.name !== before.name) return 'its name changed';
  // The event's division is judged from what the client sent (multi-org): an enricher may not move it.
  if (event.context.division_id !== before.division) return 'context.division_id changed';
  if (eventNameProblem(event.name)) return 'its name is refused';
  if (source === 'v2' && Object.keys(event.attributes).length > 0) return 'V2 events carry no attributes';
  for (const [member, value] of Object.entries(event.context)) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return `context.${member} must be a string, a number or a boolean`;
  }
  const attributes = membersProblem(event.attributes);
  if (attributes) return `attributes.${attributes[0]} ${attributes[1]}`;
  const contextProblem = membersProblem(event.context);
  return contextProblem ? `context.${contextProblem[0]} ${contextProblem[1]}` : null;
}
