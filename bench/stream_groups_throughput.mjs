// Driver of bench/stream_groups: ENTRIES entries go through a stream consumer group, XADD →
// XREADGROUP → XACK, and the entries/s from the first XADD until the last XACK is printed.
// One producer adds them in pipelines of BATCH XADDs while CONSUMERS consumers, each on its
// own connection, read COUNT BATCH with BLOCK and acknowledge each batch with one XACK.
//   node bench/stream_groups_throughput.mjs <port>
//   (ENTRIES default 50000, CONSUMERS default 1, BATCH default 100)
// ioredis comes from tests/integration/node/node_modules (run `npm ci` there first).
// Exits non-zero, printing why, if an entry is not acknowledged exactly once.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '../tests/integration/node/package.json'));
const Redis = require('ioredis');

const port = Number(process.argv[2]);
const entries = Number(process.env.ENTRIES || 50000);
const consumers = Number(process.env.CONSUMERS || 1);
const batch = Number(process.env.BATCH || 100);
const stream = 'bench:stream';
const group = 'bench';
const connect = () => new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0,
  retryStrategy: () => null });

const admin = connect();
await admin.del(stream);  // A fresh stream each run: the rounds share the server.
await admin.xgroup('CREATE', stream, group, '$', 'MKSTREAM');

let acked = 0;
const produce = async () => {
  const c = connect();
  for (let i = 0; i < entries; i += batch) {
    const p = c.pipeline();
    for (let j = i; j < Math.min(entries, i + batch); j++) p.xadd(stream, '*', 'n', String(j));
    for (const [err] of await p.exec()) if (err) throw err;
  }
  c.disconnect();
};
const consume = async (name) => {
  const c = connect();
  while (acked < entries) {
    const reply = await c.xreadgroup('GROUP', group, name, 'COUNT', batch, 'BLOCK', 100,
      'STREAMS', stream, '>');
    if (!reply) continue;  // BLOCK timed out: the producer is behind, or all are done.
    const removed = await c.xack(stream, group, ...reply[0][1].map(([id]) => id));
    acked += removed;  // Not `acked += await …`, which would add to a stale value.
  }
  c.disconnect();
};

const start = process.hrtime.bigint();
await Promise.all([produce(), ...Array.from({ length: consumers }, (_, i) => consume(`c${i}`))]);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;

const [pending] = await admin.xpending(stream, group);
await admin.del(stream);
admin.disconnect();
if (acked !== entries || pending !== 0) {
  console.error(`${acked} of ${entries} entries acknowledged, ${pending} still pending`);
  process.exit(1);
}
console.log((entries / seconds).toFixed(0));
