import { AppError } from '../../common/errors/app-error.js';
import type { AppConfig } from '../../config/config.js';
import { EventEnricherHandler, type EnrichableEvent } from '../../extension-api/kinds.js';
import { EventEnrichment } from './event-enrichment.js';
import type { ExtensionFailures } from './extension-failures.js';
import type { ExtensionRegistry } from './extension-registry.js';

class Enricher extends EventEnricherHandler {
  constructor(private readonly change: (event: EnrichableEvent) => void) {
    super();
  }
  enrich(events: EnrichableEvent[]): void {
    events.forEach(this.change);
  }
}

const enrichment = (...changes: Array<(event: EnrichableEvent) => void>) =>
  new EventEnrichment(
    { enrichers: () => changes.map((change, i) => ({ name: `e${i}`, source: 'M', handler: new Enricher(change) })) } as unknown as ExtensionRegistry,
    // What these enrichers leave is checked after they answer: none throws, so no failure is counted.
    { record: () => undefined } as unknown as ExtensionFailures,
    { extensionTimeoutMs: 100 } as AppConfig,
  );
const visit = (): EnrichableEvent => ({ name: 'visit', attributes: { store: 'PAR-1' }, context: {} });
const failure = async (promise: Promise<void> | null) => {
  try {
    await promise;
  } catch (error) {
    return error instanceof AppError ? [error.code, error.message] : error;
  }
  return null;
};

describe('EventEnrichment', () => {
  it('answers null without enrichers (nothing to await on the event path)', () => {
    expect(enrichment().enrich([visit()], { organizationId: 1, source: 'v1' })).toBeNull();
  });

  it('runs the enrichers in order on the same events', async () => {
    const event = visit();
    await enrichment((e) => (e.attributes.region = 'paris'), (e) => (e.context.region = String(e.attributes.region)))!.enrich([event], { organizationId: 1, source: 'v1' });
    expect(event).toEqual({ name: 'visit', attributes: { store: 'PAR-1', region: 'paris' }, context: { region: 'paris' } });
  });

  it.each([
    ['a name changed', (e: EnrichableEvent): void => void ((e as { name: string }).name = 'purchase'), 'v1', 'its name changed'],
    ['its division moved', (e: EnrichableEvent): void => void (e.context.division_id = 7), 'v2', 'context.division_id changed'],
    ['attributes on a V2 event', (e: EnrichableEvent): void => void (e.attributes.region = 'paris'), 'v2', 'V2 events carry no attributes'],
    ['a context value that is not flat', (e: EnrichableEvent): void => void ((e.context as Record<string, unknown>).region = { name: 'paris' }), 'v1', 'context.region must be a string, a number or a boolean'],
    ['a member named like a prototype member', (e: EnrichableEvent): void => void Object.defineProperty(e.attributes, '__proto__', { value: 1, enumerable: true }), 'v1', 'attributes.__proto__ is refused'],
  ] as const)('refuses what it leaves invalid: %s', async (_what, change, source, problem) => {
    const [code, message] = (await failure(enrichment(change).enrich([visit()], { organizationId: 1, source }))) as [string, string];
    expect(code).toBe('internal_error');
    expect(message).toContain(`event enricher "e0" (M) left event 0 (visit) invalid: ${problem}`);
  });
});
