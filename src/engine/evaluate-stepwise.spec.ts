import { evaluate, evaluateStepwise, type EvaluateInput } from './evaluate.js';
import { behavior, campaign, customer, event, goal, group, HOUR, rules, T0 } from './spec-fixtures.js';

/** A request of many instances over three behaviors: counts, a unique goal, a completion with points, repeated cycles. */
function input(): EvaluateInput {
  const visits = behavior({ id: 1, points: 10, groups: [group([goal({ id: 11, eventCount: 3 })])] });
  const stores = behavior({ id: 2, points: 25, groups: [group([goal({ id: 21, eventCount: 2, type: 'unique', uniqueAttribute: 'store_id' })])] });
  const purchases = behavior({ id: 3, points: 5, groups: [group([goal({ id: 31, name: 'purchase' })])] });
  const events = Array.from({ length: 40 }, (_, i) =>
    i % 3 === 2 ? event('purchase', { occurredAt: T0 + i * HOUR }) : event('visit', { occurredAt: T0 + i * HOUR, attributes: { store_id: `s${i % 5}` } }),
  );
  return {
    rules: rules({ campaigns: [campaign({ behaviors: [visits, stores, purchases] })] }),
    customer: customer(),
    progress: {},
    events,
    now: T0 + 40 * HOUR,
    multiOrgEnabled: false,
  };
}

describe('evaluateStepwise', () => {
  it('yields once per submitted instance and returns what evaluate returns for the same input', () => {
    const given = input();
    const steps = evaluateStepwise(given);
    let yielded = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) yielded += 1;
    expect(yielded).toBe(40);
    const whole = evaluate(given); // pure: the input is as it was
    expect(step.value).toEqual(whole);
    expect(whole.completions.length).toBeGreaterThan(10); // the input completes behaviors, so the comparison means something
  });
});
