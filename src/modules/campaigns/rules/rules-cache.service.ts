import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { Queryable } from '../../../common/database/unit-of-work.js';
import { VersionedCache } from '../../../common/versioned-cache.js';
import { compileRules, type CompiledRules } from '../../../engine/index.js';
import { ExtensionRegistry } from '../../registry/index.js';
import { toRuleSet } from './rule-set.mapper.js';
import { RulesRepository } from './rules.repository.js';

/**
 * Each organization's live campaign rules, compiled once per rules version with the registered extensions. Every management write bumps
 * `organizations.rules_version` in its transaction (ConfigChangesService), so a process that sees a version it has
 * not compiled reloads: every API and worker process agrees on the next event, with nothing to broadcast.
 * The load runs on the connection the caller passes (`db`): an evaluation holding a pooled connection compiles on
 * that same connection and never needs a second one.
 */
@Injectable()
export class RulesCacheService {
  private readonly compiled = new VersionedCache<CompiledRules>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly repository: RulesRepository,
    private readonly extensions: ExtensionRegistry,
  ) {}

  /** The rules this process compiled last for the organization, whatever their version (a hint, may be stale). */
  peek(organizationId: number): Promise<CompiledRules> | null {
    return this.compiled.peek(organizationId);
  }

  /** The compiled rules of that version or a newer one (without a version: the organization's current one). */
  async get(organizationId: number, version?: number, db: Queryable = this.db): Promise<CompiledRules> {
    version ??= await this.repository.version(db, organizationId);
    return this.compiled.get(organizationId, version, async () => compileRules(toRuleSet(await this.repository.load(db, organizationId)), this.extensions.engine()));
  }
}
