import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Queryable } from '../../../common/database/unit-of-work.js';
import { compileRules, type CompiledRules } from '../../../engine/index.js';
import { toRuleSet } from './rule-set.mapper.js';
import { RulesRepository } from './rules.repository.js';

const MAX_ORGANIZATIONS = 1000;

interface Entry {
  version: number;
  rules: Promise<CompiledRules>;
}

/**
 * Each organization's live campaign rules, compiled once per rules version. Every management write bumps
 * `organizations.rules_version` in its transaction (ConfigChangesService), so a process that sees a version it has
 * not compiled reloads: every API and worker process agrees on the next event, with nothing to broadcast.
 *
 * The load runs on the connection the caller passes (`db`): an evaluation holding a pooled connection compiles on
 * that same connection and never needs a second one. Callers that ask for the same version meanwhile wait for that
 * one load; if it fails (its transaction failed), each of them loads again on its own connection.
 */
@Injectable()
export class RulesCacheService {
  private readonly compiled = new Map<number, Entry>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly repository: RulesRepository,
  ) {}

  /** The rules this process compiled last for the organization, whatever their version (a hint, may be stale). */
  peek(organizationId: number): Promise<CompiledRules> | null {
    return this.compiled.get(organizationId)?.rules ?? null;
  }

  /**
   * The compiled rules of that version (or a newer one; without a version, the organization's current one); loaded
   * and compiled at most once per process and version.
   */
  async get(organizationId: number, version?: number, db: Queryable = this.db): Promise<CompiledRules> {
    version ??= await this.repository.version(db, organizationId);
    const cached = this.compiled.get(organizationId);
    if (!cached || cached.version < version) return this.load(organizationId, version, db).rules;
    try {
      return await cached.rules;
    } catch {
      return this.load(organizationId, version, db).rules;
    }
  }

  private load(organizationId: number, version: number, db: Queryable): Entry {
    const entry: Entry = { version, rules: this.repository.load(db, organizationId).then((stored) => compileRules(toRuleSet(stored))) };
    entry.rules.catch(() => {
      if (this.compiled.get(organizationId) === entry) this.compiled.delete(organizationId);
    });
    this.compiled.delete(organizationId);
    if (this.compiled.size >= MAX_ORGANIZATIONS) this.compiled.delete(this.compiled.keys().next().value!);
    this.compiled.set(organizationId, entry);
    return entry;
  }
}
