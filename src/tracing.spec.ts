import { describe, expect, it } from '@jest/globals';
import { tracingConfigured } from './tracing.js';
import { selectedInstrumentations } from './tracing/selection.js';

describe('tracingConfigured: traces only when the standard OTEL_* variables ask for them', () => {
  it('is off with no OTEL_* variable, or with ones that name no exporter or endpoint', () => {
    expect(tracingConfigured({})).toBe(false);
    expect(tracingConfigured({ OTEL_SERVICE_NAME: 'campaign-engine-api', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' })).toBe(false);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
  });

  it('is on with an OTLP endpoint, general or for traces, or an exporter named in OTEL_TRACES_EXPORTER', () => {
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingConfigured({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
  });

  it('is off when OTEL_SDK_DISABLED is true or OTEL_TRACES_EXPORTER says none, whatever else is set', () => {
    expect(tracingConfigured({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingConfigured({ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp' })).toBe(false);
    expect(tracingConfigured({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingConfigured({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
  });
});

describe('selectedInstrumentations: OTEL_NODE_ENABLED_INSTRUMENTATIONS, then OTEL_NODE_DISABLED_INSTRUMENTATIONS', () => {
  it('is every instrumentation of the service by default', () => {
    expect(selectedInstrumentations({})).toEqual(['http', 'express', 'pg', 'ioredis']);
  });

  it('keeps only those enabled when some are named, and drops those disabled (a name in both is dropped)', () => {
    expect(selectedInstrumentations({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http, pg' })).toEqual(['http', 'pg']);
    expect(selectedInstrumentations({ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg,express' })).toEqual(['http', 'ioredis']);
    expect(selectedInstrumentations({ OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,pg', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' })).toEqual(['http']);
    expect(selectedInstrumentations({ OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'fs,dns' })).toEqual(['http', 'express', 'pg', 'ioredis']);
  });
});
