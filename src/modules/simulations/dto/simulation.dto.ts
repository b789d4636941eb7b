import { ApiProperty, ApiPropertyOptional, getSchemaPath, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsUUID } from 'class-validator';
import { RequiredDatetime } from '../../../common/validation/schedule.dto.js';
import { Optional } from '../../../common/validation/validators.js';
import { DEFAULT_LIMITS, LIMIT_SETTINGS } from '../../../config/limits.js';
import { DATETIME_FORMS } from '../../campaigns/index.js';
import type { SimulationResults } from '../simulation-results.js';
import type { SimulationStatus } from '../simulations.repository.js';
import { RequiredObject } from '../../../common/validation/wrappers.js';

/** Customers one simulation may name, and how many of them it may explain. */
export const MAX_SIMULATION_CUSTOMERS = 10_000;
export const MAX_EXPLAINED_CUSTOMERS = 100;
const STATUSES: SimulationStatus[] = ['queued', 'running', 'completed', 'failed', 'cancelled'];
const TIME = { type: String, format: 'date-time' };

export class SimulationInput {
  @RequiredDatetime({ example: '2026-10-01T00:00:00Z', description: `The campaign is evaluated as if live from here (inclusive). ${DATETIME_FORMS}` })
  from: string;

  @RequiredDatetime({
    example: '2026-11-01T00:00:00Z',
    description:
      `Until here (inclusive): after from, and at most ${DEFAULT_LIMITS.simulationYears} years after it by default ` +
      `(${LIMIT_SETTINGS.simulationYears.env}; else 400 validation on simulation.to). ${DATETIME_FORMS}`,
  })
  to: string;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: MAX_SIMULATION_CUSTOMERS,
    example: ['0b6b2a3e-6f0e-4c57-9b59-0f2a3c1d2e4f'],
    description: 'The customers (user ids) whose events are replayed; absent: every customer with stored events in the range',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_SIMULATION_CUSTOMERS)
  @IsUUID('all', { each: true, message: 'each value in customer_ids must be a user id (a UUID)' })
  customer_ids?: string[];

  @ApiPropertyOptional({
    type: Boolean,
    default: false,
    example: false,
    description: `Keep the engine's explanation of every replayed event, by customer: only with customer_ids of at most ${MAX_EXPLAINED_CUSTOMERS}`,
  })
  @Optional()
  @IsBoolean()
  explain?: boolean;
}

export class CreateSimulationBody {
  @RequiredObject(SimulationInput)
  simulation: SimulationInput;
}

export class BehaviorResultsView {
  @ApiProperty({ example: 12, type: 'integer' }) achievements: number;
  @ApiProperty({ example: 9, type: 'integer' }) customers_achieved: number;
  @ApiProperty({ example: 600, type: 'integer' }) points: number;
}

export class DayResultsView {
  @ApiProperty({ example: '2026-10-03', description: "A day of the organization's time zone with at least one achievement" }) day: string;
  @ApiProperty({ example: 4, type: 'integer' }) achievements: number;
  @ApiProperty({ example: 200, type: 'integer' }) points: number;
}

/** A completed simulation's results, inline: OpenAPI 3.0 cannot make a referenced schema nullable. */
const RESULTS: ApiPropertyOptions = {
  type: 'object',
  nullable: true,
  required: ['points', 'achievements', 'customers_achieved', 'behaviors', 'by_day', 'states'],
  properties: {
    points: { type: 'integer', example: 600, description: 'Points the campaign would have credited (behaviors, goals, offers, outcomes)' },
    achievements: { type: 'integer', example: 12, description: 'Behavior completions' },
    customers_achieved: { type: 'integer', example: 9, description: 'Customers with at least one completion' },
    behaviors: {
      type: 'object',
      additionalProperties: { $ref: getSchemaPath(BehaviorResultsView) },
      example: { 'Buy a coffee': { achievements: 12, customers_achieved: 9, points: 600 } },
      description: 'By behavior name: only behaviors with a completion or points',
    },
    by_day: {
      type: 'array',
      items: { $ref: getSchemaPath(DayResultsView) },
      description: "By day of the organization's time zone, oldest first; days with no achievement left out",
    },
    states: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      example: { qualified: 40, events_not_qualified: 3, reached_frequency_cap: 2 },
      description: "Replayed events by the campaign's state after each (the states of an event answer)",
    },
    effects: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      example: { coupon: 4 },
      description: "After-commit effects the rewards would have asked for, by reward kind (an extension's; a simulation runs none)",
    },
    tiers: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      example: { none: 1200, Silver: 250, Gold: 50 },
      description:
        "Replayed customers by the tier they reach at the end of the replay under the organization's tier policy (`none`: no tier), " +
        "from their current tier and the points this campaign credits them in the simulation",
    },
    groups: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['customers', 'achievements', 'points'],
        properties: { customers: { type: 'integer' }, achievements: { type: 'integer' }, points: { type: 'integer' } },
      },
      example: { holdout: { customers: 100, achievements: 0, points: 0 }, A: { customers: 450, achievements: 60, points: 3000 }, B: { customers: 450, achievements: 75, points: 3750 } },
      description:
        "Only for a campaign with an experiment (contract §20): by group name (holdout and each variant), the replayed customers assigned to it " +
        '(by the same deterministic assignment as live evaluation; an experiment that has ended is replayed as running) and what the campaign did for them',
    },
  },
  description: 'Once completed (null before, and in lists)',
};

export class SimulationView {
  @ApiProperty({ example: 3, type: 'integer' }) id: number;
  @ApiProperty({ example: 7, type: 'integer' }) campaign_id: number;
  @ApiProperty({ enum: STATUSES, example: 'completed' }) status: SimulationStatus;
  @ApiProperty({ ...TIME, example: '2026-10-01T00:00:00.000Z' }) from: string;
  @ApiProperty({ ...TIME, example: '2026-11-01T00:00:00.000Z' }) to: string;
  @ApiProperty({ ...TIME, example: '2026-11-26T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ ...TIME, example: '2026-11-26T10:00:04.000Z', nullable: true, description: 'When it completed, failed or was cancelled' }) completed_at: string | null;
  @ApiProperty({ example: 1500, type: 'integer', description: 'Customers replayed so far (while running) or in all' }) customers: number;
  @ApiProperty({ example: 18000, type: 'integer', description: 'Stored events replayed so far (while running) or in all' }) events_replayed: number;
  @ApiProperty(RESULTS) results: SimulationResults | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    additionalProperties: { type: 'array', items: { type: 'object', additionalProperties: true } },
    example: null,
    description: "With explain, once completed: by user id, the engine's explanation of each replayed event in order (as read_only answers it)",
  })
  explanations: Record<string, unknown[]> | null;
  @ApiProperty({ example: null, type: 'string', nullable: true, description: 'Why it failed' }) error: string | null;
}

export class QueuedSimulationView {
  @ApiProperty({ example: 3, type: 'integer' }) id: number;
  @ApiProperty({ example: 7, type: 'integer' }) campaign_id: number;
  @ApiProperty({ enum: ['queued'], example: 'queued' }) status: 'queued';
  @ApiProperty({ ...TIME, example: '2026-10-01T00:00:00.000Z' }) from: string;
  @ApiProperty({ ...TIME, example: '2026-11-01T00:00:00.000Z' }) to: string;
}

export class QueuedSimulationResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: QueuedSimulationView }) simulation: QueuedSimulationView;
}

export class SimulationResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: SimulationView }) simulation: SimulationView;
}

export class SimulationListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [SimulationView], description: 'Newest first' }) simulations: SimulationView[];
  @ApiProperty({ example: 1, type: 'integer' }) page: number;
  @ApiProperty({ example: 10, type: 'integer' }) limit: number;
  @ApiProperty({ example: 1, type: 'integer' }) total: number;
}
