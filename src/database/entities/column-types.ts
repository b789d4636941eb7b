import type { ValueTransformer } from 'typeorm';

/** pg answers bigint as a string; points stay far below 2^53, so numbers are exact. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};

export type FlatValue = string | number | boolean;
export type FlatObject = Record<string, FlatValue>;
