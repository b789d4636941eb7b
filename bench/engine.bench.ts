/**
 * Engine throughput: evaluations per second of one event for one customer against 1, 10, 100 and 1,000 live
 * behaviors of which 1 (or 10) listen to the event, next to the raw ceiling the engine sits on (looking the event name
 * up in the listener index and bumping one counter). Run: npm run bench:engine
 */
import { engineTable, measureEngine } from './support/engine-phase.js';
import { runBench } from './support/verdict.js';

await runBench(async () => engineTable(measureEngine()));
