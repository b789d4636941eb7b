import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from '../tracing.js';

/**
 * Exports the spans still buffered when the application closes (the API on SIGTERM once its server is closed, the
 * worker once its jobs in flight are done), so the last requests and jobs before a stop keep their traces.
 */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}
