import { drawAnalytics } from './chart.js';

const entry = (period: string, events: number, participants: number, achievements: number) => ({
  period,
  events,
  participants,
  achievements,
  points_credited: 0,
  points_reversed: 0,
  offers_issued: 0,
  notifications: 0,
});

describe('the analytics chart example (examples/analytics-chart)', () => {
  it('draws the series of an answer as an SVG: one line per measure, a point per period, the periods on the axis', async () => {
    const svg = await drawAnalytics({ analytics: { series: [entry('2026-11-02', 120, 80, 6), entry('2026-11-09', 340, 150, 12), entry('2026-11-16', 90, 60, 3)] } });
    expect(svg.startsWith('<svg')).toBe(true);
    for (const label of ['events', 'participants', 'achievements', '2026-11-09']) expect(svg).toContain(label);
    // A line per measure, and a point per period and measure (3 × 3) in the points' group.
    expect(svg.match(/<g class="mark-line role-mark/g)).toHaveLength(3);
    const points = svg.slice(svg.indexOf('<g class="mark-symbol role-mark'));
    expect(points.slice(0, points.indexOf('</g>')).match(/<path/g)).toHaveLength(9);
  });
});
