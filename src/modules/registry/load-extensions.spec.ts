import { checkExtensionsFound, loadExtensions } from './load-extensions.js';
import type { ExtensionRegistry } from './extension-registry.js';

const FILE = 'test/fixtures/plain-exports.mjs';
const registryWith = (rewardKinds: number) =>
  ({ definitions: () => ({ rewardKinds: Array.from({ length: rewardKinds }, () => ({ name: 'x', source: 'M', description: '', model: undefined })), criteriaOperators: [], eventEnrichers: [], domainActions: [] }) }) as unknown as ExtensionRegistry;

describe('loadExtensions', () => {
  it('imports the default export, or the one named after #, of a file resolved from the working directory', async () => {
    const [byDefault] = await loadExtensions([FILE]);
    expect(byDefault.name).toBe('EmptyModule');
  });

  it('refuses a file that cannot be imported, an export that is missing, and a class that is not a Nest module, naming the entry', async () => {
    await expect(loadExtensions(['test/fixtures/none.mjs'])).rejects.toThrow(/^EXTENSIONS entry "test\/fixtures\/none.mjs": /);
    await expect(loadExtensions([`${FILE}#Missing`])).rejects.toThrow(`EXTENSIONS entry "${FILE}#Missing": ${FILE} exports no class named Missing`);
    await expect(loadExtensions([`${FILE}#NotAModule`])).rejects.toThrow(
      `EXTENSIONS entry "${FILE}#NotAModule": NotAModule is not a Nest module (@Module): name the module that provides the extensions`,
    );
  });
});

describe('checkExtensionsFound', () => {
  it('passes without EXTENSIONS, or when the application found an extension', () => {
    expect(() => checkExtensionsFound([], registryWith(0))).not.toThrow();
    expect(() => checkExtensionsFound([FILE], registryWith(1))).not.toThrow();
  });

  it("stops the process when the modules named hold no extension the application can see", () => {
    expect(() => checkExtensionsFound([FILE], registryWith(0))).toThrow(
      `EXTENSIONS names ${FILE}, but no @DomainAction, @RewardKind, @CriteriaOperator or @EventEnricher provider was found in them: import the decorators from the application's own dist/src/extension-api/index.js`,
    );
  });
});
