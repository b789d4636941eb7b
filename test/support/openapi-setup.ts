import { afterEach, expect } from '@jest/globals';
import { mismatches } from './response-validation.js';

// Every response an e2e test received must match the document the app serves (test/support/response-validation.ts).
afterEach(() => {
  expect(mismatches.splice(0)).toEqual([]);
});
