import { Global, Module } from '@nestjs/common';

/**
 * The time, for everything below controllers and processors: the event path, the sweepers and the processors ask the
 * injected clock, never `Date.now()`, so a test can set it (`{ provide: CLOCK, useValue: fixedClock(t) }`).
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => Date.now() };

/** A clock a test sets and moves. */
export class SettableClock implements Clock {
  constructor(private at: number) {}
  now(): number {
    return this.at;
  }
  set(at: number | Date): void {
    this.at = typeof at === 'number' ? at : at.getTime();
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

@Global()
@Module({ providers: [{ provide: CLOCK, useValue: systemClock }], exports: [CLOCK] })
export class ClockModule {}
