/** A definition of either kind: a name that rules use and who defined it. */
interface Definition {
  readonly name: string;
  readonly source: string;
}

/** Definitions by name; two with one name is an error that names both sources (`kind`: what they define). */
export function byName<T extends Definition>(kind: string, definitions: readonly T[]): ReadonlyMap<string, T> {
  const map = new Map<string, T>();
  for (const definition of definitions) {
    const taken = map.get(definition.name);
    if (taken) throw new Error(`${kind} "${definition.name}" is defined twice: by ${taken.source} and by ${definition.source}`);
    map.set(definition.name, definition);
  }
  return map;
}
