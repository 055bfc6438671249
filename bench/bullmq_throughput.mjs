// Driver of bench/bullmq: adds JOBS jobs to a BullMQ queue in bulk, then times one Worker at
// concurrency CONCURRENCY from its start until every job has completed; prints the jobs/s.
//   node bench/bullmq_throughput.mjs <port>   (JOBS default 5000, CONCURRENCY default 8)
// BullMQ comes from tests/integration/node/node_modules (run `npm ci` there first).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '../tests/integration/node/package.json'));
const { Queue, Worker } = require('bullmq');

const port = Number(process.argv[2]);
const jobs = Number(process.env.JOBS || 5000);
const concurrency = Number(process.env.CONCURRENCY || 8);
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };

const queue = new Queue('bench', { connection });
await queue.obliterate({ force: true });
for (let i = 0; i < jobs; i += 1000) {
  const batch = [];
  for (let j = i; j < Math.min(jobs, i + 1000); j++) batch.push({ name: 'job', data: { j } });
  await queue.addBulk(batch);
}
let completed = 0;
let finished;
const done = new Promise((r) => { finished = r; });
const start = process.hrtime.bigint();
const worker = new Worker('bench', async (job) => job.data.j,
  { connection, concurrency, removeOnComplete: { count: 0 } });
worker.on('completed', () => { if (++completed === jobs) finished(); });
worker.on('error', (e) => { console.error(`worker: ${e.message}`); process.exit(1); });
await done;
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
await worker.close();
await queue.close();
console.log((jobs / seconds).toFixed(0));
