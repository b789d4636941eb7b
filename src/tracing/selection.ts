/** The instrumentations the service registers, by the names OpenTelemetry's Node variables use. */
export const INSTRUMENTATIONS = ['http', 'express', 'pg', 'ioredis'] as const;
export type InstrumentationName = (typeof INSTRUMENTATIONS)[number];

function names(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/**
 * The instrumentations to register, as OpenTelemetry's Node distributions read their variables: every one unless
 * OTEL_NODE_ENABLED_INSTRUMENTATIONS names some (then those only), less those OTEL_NODE_DISABLED_INSTRUMENTATIONS
 * names (the package names without `@opentelemetry/instrumentation-`: http, express, pg, ioredis).
 */
export function selectedInstrumentations(env: NodeJS.ProcessEnv = process.env): InstrumentationName[] {
  const enabled = names(env.OTEL_NODE_ENABLED_INSTRUMENTATIONS);
  const disabled = new Set(names(env.OTEL_NODE_DISABLED_INSTRUMENTATIONS));
  return INSTRUMENTATIONS.filter((name) => (enabled.length === 0 || enabled.includes(name)) && !disabled.has(name));
}
