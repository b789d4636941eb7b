import type { Response } from 'supertest';

/**
 * Checks an error answer: its HTTP status and the envelope {"status":"error","errors":{"code","message","details"}},
 * with a message that is not empty and details (when present) of {field, message} each. Answers the fields the
 * details name, in the answer's order. The body holds nothing else unless `othersAllowed`.
 */
function checkError(res: Response, status: number, code: string, othersAllowed: boolean): string[] {
  const envelope = { status: 'error', errors: expect.objectContaining({ code, message: expect.any(String) }) };
  expect({ status: res.status, body: res.body }).toEqual({ status, body: othersAllowed ? expect.objectContaining(envelope) : envelope });
  expect(res.body.errors.message.length).toBeGreaterThan(0);
  const details = (res.body.errors.details ?? []) as Array<{ field: string; message: string }>;
  for (const detail of details) expect(detail).toEqual({ field: expect.any(String), message: expect.any(String) });
  return details.map((d) => d.field);
}

/** The error envelope, and nothing else in the body; answers the fields of the details in the answer's order. */
export function expectError(res: Response, status: number, code: string): string[] {
  return checkError(res, status, code, false);
}

/** expectError with the fields sorted, for specs that compare them regardless of the answer's order. */
export function expectErrorSorted(res: Response, status: number, code: string): string[] {
  return checkError(res, status, code, false).sort();
}

/** expectError for answers that may hold more beside the envelope (a behaviors batch answers its behaviors too). */
export function expectErrorAmongOthers(res: Response, status: number, code: string): string[] {
  return checkError(res, status, code, true);
}
