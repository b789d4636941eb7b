import { ListenedQueue } from './queue-errors.js';

describe('ListenedQueue', () => {
  it('rejects adding jobs when Redis cannot be reached, instead of waiting for it', async () => {
    // Nothing listens on port 1: the connection is refused, as with Redis down.
    const queue = new ListenedQueue('unreachable', { connection: { host: '127.0.0.1', port: 1, maxRetriesPerRequest: null } } as ConstructorParameters<typeof ListenedQueue>[1]);
    try {
      await expect(queue.addBulk([{ name: 'evaluate', data: { eventIds: ['1'] } }])).rejects.toThrow(/Redis did not take the jobs/);
      await expect(queue.add('evaluate', { eventIds: ['2'] })).rejects.toThrow(/Redis did not take the jobs/);
    } finally {
      await queue.close().catch(() => undefined);
    }
  });
});
