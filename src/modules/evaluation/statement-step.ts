/**
 * The write of an evaluation as one statement (one round trip, sent with COMMIT): named steps, each a
 * data-modifying CTE that reads one JSON parameter of the plan's rows (one JSON.stringify instead of escaping every
 * element of many array parameters). Data-modifying CTEs run to completion whether or not the final SELECT reads
 * them. Steps refer to the events by `idx` through `event_ids`, since the events' ids exist only once inserted.
 * docs/queries/event-path.sql prints every variant (src/modules/evaluation/queries.spec.ts keeps it current).
 */
export interface Step {
  name: string;
  /** The step's SQL; `param(value)` answers the placeholder of a parameter. */
  sql(param: (value: unknown) => string): string;
}
