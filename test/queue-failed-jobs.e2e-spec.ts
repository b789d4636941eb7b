import { Queue, Worker } from 'bullmq';
import { loadConfig } from '../src/config/config.js';
import { removeFailedJobs } from '../src/queues/failed-jobs.js';
import { deleteQueueKeys, ownQueuePrefix, waitFor } from './support/worker.js';

describe('re-queueing a row whose job failed every attempt (real Redis)', () => {
  const prefix = ownQueuePrefix('failed-jobs');
  const connection = { url: loadConfig(process.env).redisUrl, maxRetriesPerRequest: null };
  const queue = new Queue('failing', { connection, prefix });

  afterAll(async () => {
    await queue.close();
    await deleteQueueKeys(prefix);
  });

  it('a failed job keeps its id taken until removeFailedJobs clears it; then the same id can be queued again', async () => {
    const worker = new Worker('failing', async () => Promise.reject(new Error('database down')), { connection, prefix });
    try {
      await queue.add('deliver', {}, { jobId: 'delivery-1', attempts: 1, removeOnFail: 100 });
      await waitFor(async () => (await queue.getJob('delivery-1'))?.isFailed() ?? false, 10_000, 'the job to fail');
    } finally {
      await worker.close();
    }
    // Adding under the taken id adds nothing: the failed job stays as it was.
    await queue.add('deliver', {}, { jobId: 'delivery-1' });
    expect(await (await queue.getJob('delivery-1'))!.isFailed()).toBe(true);

    await removeFailedJobs(queue, ['delivery-1', 'delivery-unknown']);
    expect(await queue.getJob('delivery-1')).toBeUndefined();
    await queue.add('deliver', {}, { jobId: 'delivery-1' });
    expect(await (await queue.getJob('delivery-1'))!.getState()).toBe('waiting');
  });
});
