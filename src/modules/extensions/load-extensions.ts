import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { ExtensionConfigError } from './extension-registry.js';

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
      const [file, name = 'default'] = entry.split('#');
      let exported: Record<string, unknown>;
      try {
        exported = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
      } catch (error) {
        throw new ExtensionConfigError(`EXTENSIONS entry "${entry}": ${(error as Error).message}`);
      }
      const module = exported[name];
      if (typeof module !== 'function') throw new ExtensionConfigError(`EXTENSIONS entry "${entry}": ${file} exports no class named ${name}`);
      return module as Type;
    }),
  );
}

/** `root` with the extension modules imported beside it (`root` itself when there are none). */
export function withExtensions(root: Type | DynamicModule, extensions: Type[]): Type | DynamicModule {
  return extensions.length ? { module: ExtendedApplication, imports: [root, ...extensions] } : root;
}
