// The engine of two builds side by side in one process, interleaved rounds (issue #45's A/B): each root is a checkout
// with its dist/ built. Run: node bench/probes/engine-ab.mjs <rootA> <rootB> (say, a worktree of the last landed build and .)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const roots = process.argv.slice(2, 4);
const T0 = Date.UTC(2026, 0, 5, 10);
const goal = (id, name, criteria = []) => ({ id, name, eventName: name, type: 'count', uniqueAttribute: null, eventCount: 1, points: 1, required: false, criteria, minTimeBetweenEvents: null, minTimeBetweenEventsCount: 1, consecutive: false });
const behavior = (id, campaignId, g) => ({ id, campaignId, name: `B${id}`, tags: [], points: 5, period: null, maxTimesAchievable: null, maxTimesAchievablePerPeriod: null, maxTimesAchievablePerMonth: null, maxTimesAchievablePerYear: null, useSamePeriod: false, groups: [{ goalCount: 1, goals: [g] }], outcomes: [{ kind: 'points', args: 2 }] });
function ruleSet(listening, total) {
  const campaigns = [];
  for (let c = 1; c <= total; c++) {
    const name = c <= listening ? 'visit' : `other${c}`;
    campaigns.push({ id: c, name: `C${c}`, permalink: `c${c}`, status: 'live', startsAt: T0 - 1e9, endsAt: T0 + 1e10, divisionId: null, optInRequired: false, prerequisiteCampaignIds: [], targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }], budget: null, behaviors: [behavior(c, c, goal(c * 10, name, [{ field: 'store', op: 'eq', value: 's1' }]))] });
  }
  return { campaigns, offers: [], tiers: [], creatives: [], divisionAncestors: { 1: [1] } };
}
const customer = { id: 'c1', timeZone: 'UTC', divisionId: 1, tags: ['vip'], attributes: {}, availablePoints: 0, lifetimePoints: 0, tierId: null, qualifiedCampaignIds: [], completedCampaignIds: [] };
const event = { name: 'visit', count: 1, attributes: { store: 's1' }, context: {}, occurredAt: T0, day: null };
const engines = await Promise.all(roots.map((r) => import(pathToFileURL(resolve(r, 'dist/src/engine/index.js')).href)));
for (const [listening, total] of [[1, 100], [10, 100], [1, 1000]]) {
  const compiled = engines.map((e) => e.compileRules(ruleSet(listening, total), e.CORE_EXTENSIONS));
  const counts = [0, 0], times = [0, 0];
  for (let round = 0; round < 16; round++) {
    for (const i of round % 2 ? [1, 0] : [0, 1]) {
      const e = engines[i], rules = compiled[i];
      const start = process.hrtime.bigint();
      let n = 0;
      while (process.hrtime.bigint() - start < 250_000_000n) {
        for (let k = 0; k < 100; k++) e.evaluate({ rules, customer, progress: {}, events: [event], now: T0, multiOrgEnabled: false, explain: false });
        n += 100;
      }
      if (round >= 2) { counts[i] += n; times[i] += Number(process.hrtime.bigint() - start) / 1e9; }
    }
  }
  const rate = counts.map((c, i) => c / times[i]);
  process.stdout.write(`${listening} of ${total} listening: A ${Math.round(rate[0])}/s, B ${Math.round(rate[1])}/s, B/A ${(rate[1] / rate[0]).toFixed(3)}\n`);
}
