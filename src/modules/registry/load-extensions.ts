import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Module, type DynamicModule, type Type } from '@nestjs/common';
import type { MigrationInterface } from 'typeorm';
import { ExtensionConfigError, type ExtensionRegistry } from './extension-registry.js';

/** What @Module records on a class (one of them at least). */
const NEST_MODULE_METADATA = ['imports', 'providers', 'controllers', 'exports'];

/** The root of an application started with extensions: its own root module and theirs, side by side. */
@Module({})
class ExtendedApplication {}

/**
 * The Nest modules the EXTENSIONS setting names: each entry a JavaScript file, resolved from the working directory,
 * and the name of the module it exports after `#` (its default export when there is none). A file that cannot be
 * imported or does not export a class there stops the process at boot, naming the entry.
 */
export async function loadExtensions(entries: readonly string[]): Promise<Type[]> {
  return Promise.all(
    entries.map(async (entry) => {
      const { file, name, exported } = await importEntry(entry);
      const module = exported[name];
      if (typeof module !== 'function') throw new ExtensionConfigError(`EXTENSIONS entry "${entry}": ${file} exports no class named ${name}`);
      if (!NEST_MODULE_METADATA.some((key) => Reflect.hasOwnMetadata(key, module))) {
        throw new ExtensionConfigError(`EXTENSIONS entry "${entry}": ${name} is not a Nest module (@Module): name the module that provides the extensions`);
      }
      return module as Type;
    }),
  );
}

/** An EXTENSIONS entry's file, imported: what it exports, and the name of its module. */
async function importEntry(entry: string): Promise<{ file: string; name: string; exported: Record<string, unknown> }> {
  const [file, name = 'default'] = entry.split('#');
  try {
    return { file, name, exported: (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown> };
  } catch (error) {
    throw new ExtensionConfigError(`EXTENSIONS entry "${entry}": ${(error as Error).message}`);
  }
}

/**
 * The migrations of the extensions' own tables: what each EXTENSIONS entry's file exports as `migrations` (TypeORM
 * migration classes), run by `npm run cli -- migrate` with the service's own, in the order of their timestamps.
 */
export async function extensionMigrations(entries: readonly string[]): Promise<Array<new () => MigrationInterface>> {
  const found = await Promise.all(entries.map(async (entry) => (await importEntry(entry)).exported.migrations ?? []));
  return found.flat() as Array<new () => MigrationInterface>;
}

/**
 * Stops the process when EXTENSIONS named modules but the application found no extension in them: most likely they
 * import the decorators from another copy of the extension API than the one the application runs (its decorators
 * have keys of their own), and rules naming them would be refused.
 */
export function checkExtensionsFound(entries: readonly string[], registry: ExtensionRegistry): void {
  const { domainActions, rewardKinds, criteriaOperators, eventEnrichers } = registry.definitions();
  if (entries.length > 0 && domainActions.length + rewardKinds.length + criteriaOperators.length + eventEnrichers.length === 0) {
    throw new ExtensionConfigError(
      `EXTENSIONS names ${entries.join(', ')}, but no @DomainAction, @RewardKind, @CriteriaOperator or @EventEnricher provider was found in them: import the decorators from the application's own dist/src/extension-api/index.js`,
    );
  }
}

/** `root` with the extension modules imported beside it (`root` itself when there are none). */
export function withExtensions(root: Type | DynamicModule, extensions: Type[]): Type | DynamicModule {
  return extensions.length ? { module: ExtendedApplication, imports: [root, ...extensions] } : root;
}
