import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { createLogger, LOGGER } from './logger.js';

@Global()
@Module({})
export class LoggingModule {
  static forRoot(service: 'api' | 'worker' | 'cli'): DynamicModule {
    return {
      module: LoggingModule,
      providers: [{ provide: LOGGER, inject: [APP_CONFIG], useFactory: (config: AppConfig) => createLogger(config.logLevel, service) }],
      exports: [LOGGER],
    };
  }
}
