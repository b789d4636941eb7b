import { Module } from '@nestjs/common';
import { RulesModule } from '../campaigns/index.js';
import { TierFacts } from '../customers-state/index.js';
import { WebhookSubscriptions } from '../webhooks/index.js';
import { AfterCommit } from './after-commit.js';
import { CustomerTransactions } from './customer-transactions.js';
import { EvaluationPipeline } from './evaluation.pipeline.js';
import { EvaluationRepository } from './evaluation.repository.js';
import { StoredEventsEvaluation } from './stored-events.evaluation.js';

/**
 * The evaluation pipeline (docs/decisions/0009-evaluation-pipeline.md): every way in to the engine that writes (V1,
 * perform, the events worker) or reads as if it would (read_only, the qualify check) goes through it.
 */
@Module({
  imports: [RulesModule],
  providers: [CustomerTransactions, EvaluationRepository, EvaluationPipeline, StoredEventsEvaluation, AfterCommit, WebhookSubscriptions, TierFacts],
  exports: [EvaluationPipeline, StoredEventsEvaluation, CustomerTransactions, EvaluationRepository, AfterCommit, RulesModule],
})
export class EvaluationModule {}
