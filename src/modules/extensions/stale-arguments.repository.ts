import type { Queryable } from '../../common/database/unit-of-work.js';
import { canonicalJson, type StaleObjectType, type StoredRulesObject } from '../registry/index.js';

/** Which stored objects to read: those naming one of these extensions, by id, at most `limit` of each type. */
export interface CandidateFilter {
  /** The extensions' reward kinds (not the built-ins). */
  kinds: readonly string[];
  /** The extensions' criteria operators (not the built-ins). */
  operators: readonly string[];
  /** At most this many objects of each type, in id order. */
  limit: number;
  /** One organization's, else every organization's. */
  organizationId?: number;
  /** Objects past these ids (a walk in pages); the types not named start at the first. */
  after?: Partial<Record<StaleObjectType, number>>;
  /** Only these types (default all three). */
  types?: readonly StaleObjectType[];
}

interface Row {
  object_type: StaleObjectType;
  object_id: number;
  organization_id: number;
  outcome_config: unknown;
  goal_groups: unknown;
  targeting: unknown;
}

const TABLES: Record<StaleObjectType, string> = { behavior: 'behaviors', campaign: 'campaigns', creative_group: 'creative_groups' };
const COLUMNS: Record<StaleObjectType, readonly string[]> = { behavior: ['outcome_config', 'goal_groups'], campaign: ['targeting'], creative_group: ['targeting'] };

function stored(row: Row): StoredRulesObject {
  const { object_type, object_id, organization_id } = row;
  return object_type === 'behavior'
    ? { object_type, object_id, organization_id, outcome_config: row.outcome_config, goal_groups: row.goal_groups }
    : { object_type, object_id, organization_id, targeting: row.targeting };
}

/**
 * The stored rules that may hold extensions' arguments (decision 0027): behaviors whose outcomes or goal criteria, and
 * campaigns and creative groups whose targeting, name an extension's reward kind or operator, not deleted (nor their
 * campaign, nor a group's line item). Read with jsonb predicates, so that only those naming an extension come back; the
 * checks themselves are the finder's (stale-arguments.ts). Written back by `extensions:upgrade`, with an audit entry and
 * the rules version bumped as ConfigChangesService does for every management write.
 */
export class StaleArgumentsRepository {
  /** One statement: at most `limit` objects of each type naming one of the extensions, in id order per type. */
  async candidates(db: Queryable, filter: CandidateFilter): Promise<StoredRulesObject[]> {
    const params: unknown[] = [filter.kinds, filter.operators, filter.limit];
    const org = filter.organizationId === undefined ? '' : `AND o.organization_id = $${params.push(filter.organizationId)}`;
    const after = (type: StaleObjectType) => `AND o.id > $${params.push(filter.after?.[type] ?? 0)}`;
    const types = filter.types ?? ['behavior', 'campaign', 'creative_group'];
    const namesOperator = (column: string, path: string) =>
      `EXISTS (SELECT 1 FROM jsonb_path_query(${column}, '${path}') op WHERE op #>> '{}' = ANY($2::text[]))`;
    const parts: string[] = [];
    if (types.includes('behavior') && filter.kinds.length + filter.operators.length > 0) {
      parts.push(`(SELECT 'behavior' AS object_type, o.id AS object_id, o.organization_id, o.outcome_config, o.goal_groups, NULL::jsonb AS targeting
                     FROM behaviors o JOIN campaigns c ON c.id = o.campaign_id AND c.deleted_at IS NULL
                    WHERE o.deleted_at IS NULL ${org} ${after('behavior')}
                      AND (EXISTS (SELECT 1 FROM jsonb_array_elements(o.outcome_config) e WHERE jsonb_typeof(e) = 'object' AND e ?| $1::text[])
                           OR ${namesOperator('o.goal_groups', '$[*].goals[*].criteria[*].op')})
                    ORDER BY o.id LIMIT $3)`);
    }
    if (types.includes('campaign') && filter.operators.length > 0) {
      parts.push(`(SELECT 'campaign' AS object_type, o.id AS object_id, o.organization_id, NULL::jsonb AS outcome_config, NULL::jsonb AS goal_groups, o.targeting
                     FROM campaigns o
                    WHERE o.deleted_at IS NULL ${org} ${after('campaign')} AND ${namesOperator('o.targeting', '$[*].op')}
                    ORDER BY o.id LIMIT $3)`);
    }
    if (types.includes('creative_group') && filter.operators.length > 0) {
      parts.push(`(SELECT 'creative_group' AS object_type, o.id AS object_id, o.organization_id, NULL::jsonb AS outcome_config, NULL::jsonb AS goal_groups, o.targeting
                     FROM creative_groups o
                     JOIN line_items l ON l.id = o.line_item_id AND l.deleted_at IS NULL
                     JOIN campaigns c ON c.id = l.campaign_id AND c.deleted_at IS NULL
                    WHERE o.deleted_at IS NULL ${org} ${after('creative_group')} AND ${namesOperator('o.targeting', '$[*].op')}
                    ORDER BY o.id LIMIT $3)`);
    }
    if (parts.length === 0) return [];
    const rows = (await db.query(parts.join('\nUNION ALL\n'), params)) as Row[];
    const order: readonly StaleObjectType[] = ['behavior', 'campaign', 'creative_group'];
    return rows.sort((a, b) => order.indexOf(a.object_type) - order.indexOf(b.object_type) || a.object_id - b.object_id).map(stored);
  }

  /** The object as stored now, locked for the caller's transaction; null when it was deleted since. */
  async lock(db: Queryable, type: StaleObjectType, id: number): Promise<StoredRulesObject | null> {
    const columns = type === 'behavior' ? 'outcome_config, goal_groups, NULL::jsonb AS targeting' : 'NULL::jsonb AS outcome_config, NULL::jsonb AS goal_groups, targeting';
    const rows = (await db.query(
      `SELECT '${type}' AS object_type, id AS object_id, organization_id, ${columns} FROM ${TABLES[type]} WHERE id = $1 AND deleted_at IS NULL FOR UPDATE`,
      [id],
    )) as Row[];
    return rows[0] ? stored(rows[0]) : null;
  }

  /**
   * Writes the object's upgraded columns, in the caller's transaction, with what every management write does there: an
   * audit entry (`update`, no api key: the command line's; before and after hold the columns that changed, as stored)
   * and the organization's rules version bumped, so that every process recompiles its rules before its next event.
   */
  async write(db: Queryable, object: StoredRulesObject, columns: Record<string, unknown>): Promise<void> {
    const type = object.object_type;
    const names = COLUMNS[type];
    const sets = names.map((name, i) => `${name} = $${i + 2}::jsonb`).join(', ');
    await db.query(`UPDATE ${TABLES[type]} SET ${sets}, updated_at = now() WHERE id = $1`, [object.object_id, ...names.map((name) => JSON.stringify(columns[name]))]);
    const was = object as unknown as Record<string, unknown>;
    const changed = names.filter((name) => canonicalJson(was[name]) !== canonicalJson(columns[name]));
    const before = Object.fromEntries(changed.map((name) => [name, was[name]]));
    const after = Object.fromEntries(changed.map((name) => [name, columns[name]]));
    await db.query(
      `INSERT INTO audit_log (organization_id, api_key_id, action, object_type, object_id, before, after) VALUES ($1, NULL, 'update', $2, $3, $4, $5)`,
      [object.organization_id, type, String(object.object_id), JSON.stringify(before), JSON.stringify(after)],
    );
    await db.query(`UPDATE organizations SET rules_version = rules_version + 1 WHERE id = $1`, [object.organization_id]);
  }
}
