/** The reward-effects module's face: what other modules may import of it. */
export { RewardEffectsWorkerModule } from './reward-effects-worker.module.js';
export { RewardEffectsRepository } from './reward-effects.repository.js';
