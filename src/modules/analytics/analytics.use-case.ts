import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CampaignsService } from '../campaigns/index.js';
import { AnalyticsRepository, type DailyRow, type ParticipantMask } from './analytics.repository.js';
import type { AnalyticsQuery, AnalyticsView, CountsView } from './dto/analytics.dto.js';
import { dateOf, dayNumber, GRANULARITIES, localDate, periodsOf, yearMasks, type Granularity, type Period } from './periods.js';

/** The range a request may ask for, and the default one (contract §19). */
export const MAX_YEARS = 3;
export const DEFAULT_DAYS = 30;

const ZERO: CountsView = { events: 0, participants: 0, achievements: 0, points_credited: 0, points_reversed: 0, offers_issued: 0, notifications: 0 };

/**
 * What a campaign did (contract §19), read from the read model the event path keeps (decision 0022): sums of the
 * daily counters by period, distinct participants from the customers' bitmaps of active days (daily ones counted by the
 * event path as each customer's first event of the day), distinct achievers, and the goal funnel.
 */
@Injectable()
export class AnalyticsUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly campaigns: CampaignsService,
    private readonly repository: AnalyticsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async analytics(tenant: Tenant, campaignId: number, query: AnalyticsQuery): Promise<AnalyticsView> {
    const { from, to, granularity } = this.range(tenant, query);
    await this.campaigns.find(this.db.manager, tenant, { id: campaignId });
    // Everything processed before this read is in it: the activity not folded yet is folded first.
    await this.repository.foldAll();
    const periods = periodsOf(from, to, granularity);
    // Participants from the bitmaps: over the whole range (group -1), and per period unless days (counted as written).
    const masks: ParticipantMask[] = [
      ...yearMasks(from, to).map((m) => ({ group: -1, ...m })),
      ...(granularity === 'day' ? [] : periods.flatMap((p, i) => yearMasks(p.from, p.to).map((m) => ({ group: i, ...m })))),
    ];
    const [fromDate, toDate] = [dateOf(from), dateOf(to)];
    const [daily, participants, achievers, behaviors] = await Promise.all([
      this.repository.daily(campaignId, fromDate, toDate),
      this.repository.participants(campaignId, masks),
      this.repository.achievers(campaignId, fromDate, toDate),
      this.repository.behaviors(campaignId),
    ]);
    const goals = behaviors.flatMap((b) => b.goal_groups.flatMap((g) => g.goals.map((goal) => ({ goal, behavior: b }))));
    const funnel = await this.repository.goals(goals.map((g) => g.goal.id));

    const campaignDays = daily.filter((r) => r.behavior_id === 0);
    const byPeriod = periods.map((): DailyRow[] => []);
    for (const r of campaignDays) byPeriod[periodIndex(periods, r.day)].push(r);
    const series = periods.map((p, i) => ({
      period: p.period,
      ...sum(byPeriod[i]),
      ...(granularity === 'day' ? {} : { participants: participants.get(i) ?? 0 }),
    }));
    return {
      campaign_id: campaignId,
      from: fromDate,
      to: toDate,
      granularity,
      time_zone: tenant.timeZone,
      totals: { ...sum(campaignDays), participants: participants.get(-1) ?? 0, customers_achieved: achievers.get(0) ?? 0 },
      series,
      behaviors: Object.fromEntries(
        behaviors.map((b) => {
          const counts = sum(daily.filter((r) => r.behavior_id === b.id));
          return [b.name, { achievements: counts.achievements, customers_achieved: achievers.get(b.id) ?? 0, points: counts.points_credited - counts.points_reversed }];
        }),
      ),
      goals: goals.map(({ goal, behavior }) => ({
        goal_id: goal.id,
        behavior_name: behavior.name,
        name: goal.name,
        customers_started: funnel.get(goal.id)?.started ?? 0,
        customers_completed: funnel.get(goal.id)?.completed ?? 0,
      })),
    };
  }

  /** The range asked for, in day numbers, checked; by default the 30 days ending today in the organization's zone. */
  private range(tenant: Tenant, query: AnalyticsQuery): { from: number; to: number; granularity: Granularity } {
    const date = (name: 'from' | 'to') => {
      const value = query[name];
      if (value === undefined) return null;
      const day = typeof value === 'string' ? dayNumber(value) : null;
      if (day === null) throw AppError.validation(name, 'must be a date YYYY-MM-DD');
      return day;
    };
    const granularity = query.granularity ?? 'day';
    if (typeof granularity !== 'string' || !GRANULARITIES.includes(granularity as Granularity)) throw AppError.validation('granularity', `must be one of ${GRANULARITIES.join(', ')}`);
    const [askedFrom, askedTo] = [date('from'), date('to')];
    const to = askedTo ?? dayNumber(localDate(this.clock.now(), tenant.timeZone))!;
    const from = askedFrom ?? to - (DEFAULT_DAYS - 1);
    if (to < from) throw AppError.validation('to', 'must not be before from');
    const limit = new Date(from * 86_400_000);
    limit.setUTCFullYear(limit.getUTCFullYear() + MAX_YEARS);
    if (to * 86_400_000 >= limit.getTime()) throw AppError.validation('to', `must be less than ${MAX_YEARS} years after from (a range of at most ${MAX_YEARS} years)`);
    return { from, to, granularity: granularity as Granularity };
  }
}

/** The index of the period holding `day` (periods in order, covering the range). */
function periodIndex(periods: Period[], day: number): number {
  let [low, high] = [0, periods.length - 1];
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (periods[mid].from <= day) low = mid;
    else high = mid - 1;
  }
  return low;
}

function sum(rows: DailyRow[]): CountsView {
  const total = { ...ZERO };
  for (const r of rows) for (const key of Object.keys(ZERO) as Array<keyof CountsView>) total[key] += r[key];
  return total;
}
