import { Module } from '@nestjs/common';
import { LoggingModule } from './common/logging/logging.module.js';
import { CoreModule } from './core.module.js';

/** The worker process: queue processors only, no HTTP listener. Later modules add their processors here. */
@Module({ imports: [CoreModule, LoggingModule.forRoot('worker')] })
export class WorkerModule {}
