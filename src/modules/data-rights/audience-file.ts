import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/**
 * Rewrites an audience CSV without the customer's record (its last field is the user id), through a file renamed into
 * place. A record is one line or, when an external id holds a line break (quoted), the lines up to its closing quote.
 */
export async function withoutCustomer(path: string, customerId: string): Promise<void> {
  const suffix = `,${customerId}`;
  const temp = `${path}.erasure.tmp`;
  const out = createWriteStream(temp, { encoding: 'utf8' });
  let removed = 0;
  let record = '';
  try {
    const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of lines) {
      record += `${line}\n`;
      // Inside a quoted field while the record holds an odd number of quotes (a quote within one is doubled).
      if ((record.match(/"/g)?.length ?? 0) % 2 === 1) continue;
      if (record.endsWith(`${suffix}\n`)) removed += 1;
      else if (!out.write(record)) await once(out, 'drain');
      record = '';
    }
    if (record && !out.write(record)) await once(out, 'drain');
  } catch (error) {
    out.destroy();
    await rm(temp, { force: true });
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  out.end();
  await once(out, 'close');
  if (removed > 0) await rename(temp, path);
  else await rm(temp, { force: true });
}
