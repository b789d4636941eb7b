import { Global, Module } from '@nestjs/common';
import { configFromEnv } from './config.js';

export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({
  providers: [{ provide: APP_CONFIG, useFactory: () => configFromEnv() }],
  exports: [APP_CONFIG],
})
export class ConfigModule {}
