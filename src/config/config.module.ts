import { Global, Module } from '@nestjs/common';
import { configFromEnv } from './config.js';
import { useLimits } from './limits.js';

export const APP_CONFIG = Symbol('APP_CONFIG');

/** The configuration of this process; its limits (§18) also set for the validators that read them (limits.ts). */
function processConfig() {
  const config = configFromEnv();
  useLimits(config.limits);
  return config;
}

@Global()
@Module({
  providers: [{ provide: APP_CONFIG, useFactory: processConfig }],
  exports: [APP_CONFIG],
})
export class ConfigModule {}
