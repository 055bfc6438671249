// A job queue on Redis stream consumer groups (stream_queue.mjs: XGROUP, XREADGROUP BLOCK,
// XACK, XAUTOCLAIM, a delayed sorted set, a dead-letter stream), driven through ioredis against
// a real redis-server and against cairn-server; each scenario must end alike on both.
//
// Part of the node tests ctest runs (tests/integration). To run it alone, from this directory:
//
//   CAIRN_SERVER_BINARY=/path/to/cairn-server node --test stream_queue.test.mjs
//
// The scenarios:
// - retries and recovery: 2 producers add 200 jobs; 4 consumers in one group run them. Some
//   jobs fail a few times and are retried with backoff through the delayed set, some fail for
//   good and go to the dead stream, and one consumer dies in the middle of its first batch;
//   the others take its entries over with XAUTOCLAIM. Every job ends once, done or dead.
// - many entries: 2 producers add 20,000 entries each while 4 consumers read them in batches
//   and acknowledge them; every entry is delivered and acknowledged exactly once.
// Nothing here waits a fixed time for correctness: the tests poll for a condition, with a
// deadline that only turns a hang into a failure.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { onBothServers } from './servers.mjs';
import { StreamQueue, Worker } from './stream_queue.mjs';

const work = mkdtempSync(join(tmpdir(), 'cairn-stream-queue-'));
after(() => rmSync(work, { recursive: true, force: true }));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function connect(port) {
  // No retries: a dropped connection is a failure to see, not something to paper over.
  return new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 0, retryStrategy: () => null });
}

// Polls `condition` until it holds; throws after `ms` (a hang detector, not a timing check).
async function waitFor(what, condition, ms = 30000) {
  const deadline = Date.now() + ms;
  while (!await condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

// XINFO GROUPS / CONSUMERS replies as objects, without what differs from run to run (entry
// ids made of the clock, idle times; `inactive` is Redis 7.2's, which 7.0 does not send).
function infoObjects(reply, drop) {
  return reply.map((flat) => {
    const o = {};
    for (let i = 0; i < flat.length; i += 2) if (!drop.includes(flat[i])) o[flat[i]] = flat[i + 1];
    return o;
  });
}

async function groupState(redis, queue) {
  const [count, , , perConsumer] = await redis.xpending(queue.stream, queue.group);
  return {
    pending: { count, perConsumer },
    streamLength: await redis.xlen(queue.stream),
    groups: infoObjects(await redis.xinfo('GROUPS', queue.stream), ['last-delivered-id']),
    consumers: infoObjects(await redis.xinfo('CONSUMERS', queue.stream, queue.group),
      ['idle', 'inactive']).sort((a, b) => a.name.localeCompare(b.name)),
  };
}

// --- Retries, dead letters and a consumer that dies -------------------------------------------

const jobCount = 200;
const maxAttempts = 4;
// Jobs fail by their number: multiples of 7 every time (dead after maxAttempts), other
// multiples of 5 on their first two attempts (done on the third).
const failsForGood = (n) => n % 7 === 0;
const attemptsNeeded = (n) => (failsForGood(n) ? Infinity : n % 5 === 0 ? 3 : 1);

async function retriesScenario(port) {
  const redis = connect(port);
  const conns = [redis];
  const queue = new StreamQueue(redis, 'jobs', { maxAttempts, backoffMs: 10, claimIdleMs: 100 });
  const workers = [];
  try {
    await queue.createGroup();
    // Two producers, each on its connection, add the odd and the even jobs.
    const producers = [0, 1].map(() => { const c = connect(port); conns.push(c); return c; });
    await Promise.all(producers.map((c, p) => {
      const jobs = [];
      for (let n = 1 + p; n <= jobCount; n += 2) jobs.push({ job: `job-${n}`, data: { n } });
      return queue.add(jobs, c);
    }));

    const handler = async ({ data: { n }, attempt }) => {
      if (attempt < attemptsNeeded(n)) throw new Error(`job ${n} fails attempt ${attempt}`);
    };
    // c4 dies as it starts on the 4th entry of its first batch: it has settled 3 of the 10
    // it read and holds 7 (the group reads COUNT 10 and 200 jobs are waiting).
    let started = 0;
    const doomed = async (job) => {
      if (++started === 4) return workers[3].kill();
      return handler(job);
    };
    for (const [i, name] of ['c1', 'c2', 'c3', 'c4'].entries()) {
      const c = connect(port);
      conns.push(c);
      workers.push(new Worker(queue, c, name, i === 3 ? doomed : handler));
    }
    workers.forEach((w) => w.start());

    await waitFor('c4 to die', () => !workers[3].running || workers[3].errors.length > 0);
    const held = [...workers[3].unacked];
    const survivors = workers.slice(0, 3);
    const broken = () => survivors.some((w) => w.errors.length > 0);
    await waitFor('every job done or dead', async () => broken() ||
      await redis.xlen(queue.done) + await redis.xlen(queue.dead) >= jobCount);
    await Promise.all(survivors.map((w) => w.stop()));

    const outcome = async (key) => (await redis.xrange(key, '-', '+'))
      .map(([, f]) => f.filter((_, i) => i % 2).join(' ')).sort();
    const claimed = new Set(survivors.flatMap((w) => w.claimed));
    return {
      errors: workers.flatMap((w) => w.errors),
      done: await outcome(queue.done),
      dead: await outcome(queue.dead),
      heldByTheDead: held.length,
      allTakenOver: held.every((id) => claimed.has(id)),
      delayedLeft: await redis.zcard(queue.delayed),
      ...await groupState(redis, queue),
    };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    conns.forEach((c) => c.disconnect());
  }
}

test('stream queue: retries with backoff, dead letters, a dead consumer taken over', async (t) => {
  const expectDone = [];
  const expectDead = [];
  let retries = 0;
  for (let n = 1; n <= jobCount; n++) {
    if (failsForGood(n)) {
      expectDead.push(`job-${n} ${maxAttempts} job ${n} fails attempt ${maxAttempts}`);
      retries += maxAttempts - 1;
    } else {
      expectDone.push(`job-${n} ${attemptsNeeded(n)}`);
      retries += attemptsNeeded(n) - 1;
    }
  }
  await onBothServers(t, work, 'retries', retriesScenario, (got) => {
    assert.deepEqual(got.errors, []);
    // Each job ends once: done after the attempts it needs, or dead after maxAttempts.
    assert.deepEqual(got.done, expectDone.sort());
    assert.deepEqual(got.dead, expectDead.sort());
    assert.equal(got.heldByTheDead, 7);
    assert.ok(got.allTakenOver, 'XAUTOCLAIM took over every entry the dead consumer held');
    assert.equal(got.delayedLeft, 0);
    assert.deepEqual(got.pending, { count: 0, perConsumer: null });
    assert.equal(got.streamLength, jobCount + retries);
    assert.deepEqual(got.groups, [{ name: 'workers', consumers: 4, pending: 0,
      'entries-read': jobCount + retries, lag: 0 }]);
    // The dead consumer stays in the group (nothing removes it), holding nothing now.
    assert.deepEqual(got.consumers, ['c1', 'c2', 'c3', 'c4'].map((name) => ({ name, pending: 0 })));
  });
});

// --- Many entries, batched ---------------------------------------------------------------

const perProducer = 20000;
const batch = 500;  // Entries per XADD pipeline, and per XREADGROUP COUNT.

async function manyEntriesScenario(port) {
  const redis = connect(port);
  const conns = [redis];
  const queue = new StreamQueue(redis, 'bulk');
  try {
    await queue.createGroup();
    const total = 2 * perProducer;
    let acked = 0;
    const delivered = new Map();  // Entry id -> how often a consumer got it.
    const errors = [];

    const produce = async (p) => {
      const c = connect(port);
      conns.push(c);
      for (let i = 0; i < perProducer; i += batch) {
        const jobs = [];
        for (let j = i; j < i + batch; j++) jobs.push({ job: `p${p}-${j}` });
        await queue.add(jobs, c);
      }
    };
    // A consumer acknowledges each batch with one XACK, and stops once all are acknowledged.
    const deadline = Date.now() + 60000;  // Turns a hang into a failure.
    const consume = async (name) => {
      const c = connect(port);
      conns.push(c);
      try {
        while (acked < total) {
          if (Date.now() > deadline) throw new Error(`${acked} of ${total} acknowledged in 60 s`);
          const reply = await c.xreadgroup('GROUP', queue.group, name, 'COUNT', batch,
            'BLOCK', 100, 'STREAMS', queue.stream, '>');
          if (!reply) continue;
          const ids = reply[0][1].map(([id]) => id);
          for (const id of ids) delivered.set(id, (delivered.get(id) ?? 0) + 1);
          const removed = await c.xack(queue.stream, queue.group, ...ids);
          acked += removed;  // Not `acked += await …`, which would add to a stale value.
        }
      } catch (e) {
        errors.push(`${name}: ${e.message}`);
        acked = Infinity;  // Let the others stop too.
      }
    };
    await Promise.all([produce(0), produce(1), ...['c1', 'c2', 'c3', 'c4'].map(consume)]);

    // Acknowledging again changes nothing: XACK counts only entries still pending.
    const sample = [...delivered.keys()].slice(0, 100);
    return {
      errors,
      acked,
      delivered: [...delivered.values()].reduce((a, b) => a + b, 0),
      distinct: delivered.size,
      ackedAgain: sample.length ? await redis.xack(queue.stream, queue.group, ...sample) : null,
      ...await groupState(redis, queue),
    };
  } finally {
    conns.forEach((c) => c.disconnect());
  }
}

test('stream queue: 2 producers × 4 consumers × 20,000 entries, each acknowledged once', async (t) => {
  const total = 2 * perProducer;
  await onBothServers(t, work, 'many', manyEntriesScenario, (got) => {
    assert.deepEqual(got.errors, []);
    assert.deepEqual([got.acked, got.delivered, got.distinct], [total, total, total]);
    assert.equal(got.ackedAgain, 0);
    assert.deepEqual(got.pending, { count: 0, perConsumer: null });
    assert.equal(got.streamLength, total);
    assert.deepEqual(got.groups, [{ name: 'workers', consumers: 4, pending: 0,
      'entries-read': total, lag: 0 }]);
    assert.deepEqual(got.consumers, ['c1', 'c2', 'c3', 'c4'].map((name) => ({ name, pending: 0 })));
  });
});
