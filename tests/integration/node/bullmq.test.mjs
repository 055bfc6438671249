// BullMQ (npm, unchanged) against a real redis-server and against cairn-server: one job-queue
// scenario per server, whose outcome (job states, attempts, return values, events) must be the
// same on both.
//
// Part of the node tests ctest runs (tests/integration). To run it alone, from this directory:
//
//   CAIRN_SERVER_BINARY=/path/to/cairn-server node --test bullmq.test.mjs
//
// BULLMQ_SERVERS (comma-separated: redis-server, cairn-server; default both) picks the servers.
// Every error a BullMQ object emits or a call throws is printed, so a run against cairn-server
// lists what it is missing.
//
// The scenario: plain, delayed and prioritised jobs, a job added twice under one jobId (kept
// once), a job that fails twice and then succeeds (exponential backoff), one that fails all its
// attempts, a job scheduler firing three times, all processed by one Worker at concurrency 4,
// with QueueEvents reporting the completed and failed jobs.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker, QueueEvents } from 'bullmq';
import { startServer, startRedis } from './servers.mjs';

const work = mkdtempSync(join(tmpdir(), 'cairn-bullmq-'));
after(() => rmSync(work, { recursive: true, force: true }));

const host = '127.0.0.1';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const allServers = { 'redis-server': startRedis, 'cairn-server': (dir) => startServer(dir) };
const wanted = (process.env.BULLMQ_SERVERS || 'redis-server,cairn-server').split(',');
const servers = Object.fromEntries(Object.entries(allServers).filter(([n]) => wanted.includes(n)));

// Resolves with `promise`'s value, or with `fallback` after `ms`.
// (The timer is cleared, so that it does not keep node alive.)
function within(promise, ms, fallback) {
  let timer;
  const late = new Promise((r) => { timer = setTimeout(() => r(fallback), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// The jobs with fixed ids, and what each does when processed.
const fixedJobs = [
  { name: 'plain', data: { n: 1 }, opts: { jobId: 'plain-1' } },
  { name: 'plain', data: { n: 2 }, opts: { jobId: 'plain-2' } },
  { name: 'plain', data: { n: 3 }, opts: { jobId: 'plain-3' } },
  { name: 'delayed', data: { n: 4 }, opts: { jobId: 'delayed-1', delay: 150 } },
  { name: 'prioritised', data: { n: 5 }, opts: { jobId: 'prio-low', priority: 10 } },
  { name: 'prioritised', data: { n: 6 }, opts: { jobId: 'prio-high', priority: 1 } },
  { name: 'dedup', data: { n: 7 }, opts: { jobId: 'dedup-1' } },
  { name: 'dedup', data: { n: 8 }, opts: { jobId: 'dedup-1' } },  // Same id: not added again.
  { name: 'flaky', data: { n: 9, failures: 2 },
    opts: { jobId: 'flaky-1', attempts: 3, backoff: { type: 'exponential', delay: 50 } } },
  { name: 'doomed', data: { n: 10, failures: 99 },
    opts: { jobId: 'doomed-1', attempts: 2, backoff: { type: 'exponential', delay: 50 } } },
];
const fixedIds = [...new Set(fixedJobs.map((j) => j.opts.jobId))].sort();
const ticks = 3;  // How often the job scheduler fires.

async function scenario(port, errors) {
  const connection = { host, port, maxRetriesPerRequest: null, enableOfflineQueue: true };
  const note = (what) => (e) => errors.push(`${what}: ${e && e.message ? e.message : e}`);
  const queue = new Queue('scenario', { connection });
  queue.on('error', note('Queue'));
  const events = new QueueEvents('scenario', { connection });
  events.on('error', note('QueueEvents'));
  const seen = { completed: [], failed: [] };
  let ticked = 0;
  let finished;
  const done = new Promise((r) => { finished = r; });
  const check = () => {
    const ids = new Set([...seen.completed, ...seen.failed]);
    if (ticked >= ticks && fixedIds.every((id) => ids.has(id))) finished(true);
  };
  events.on('completed', ({ jobId }) => {
    if (!jobId.startsWith('repeat:')) seen.completed.push(jobId);
    check();
  });
  events.on('failed', ({ jobId, failedReason }) => {
    seen.failed.push(`${jobId}: ${failedReason}`);
    seen.failed.push(jobId);
    check();
  });
  let worker;
  try {
    await within(events.waitUntilReady(), 5000).catch(note('QueueEvents.waitUntilReady'));
    const added = [];
    for (const j of fixedJobs) {
      try {
        const job = await queue.add(j.name, j.data, j.opts);
        added.push(job.id);
      } catch (e) {
        note(`Queue.add ${j.opts.jobId}`)(e);
      }
    }
    try {
      await queue.upsertJobScheduler('tick', { every: 100, limit: ticks },
        { name: 'tick', data: {} });
    } catch (e) {
      note('Queue.upsertJobScheduler')(e);
    }
    worker = new Worker('scenario', async (job) => {
      if (job.name === 'tick') { ticked++; check(); return 'tock'; }
      if (job.data.failures && job.attemptsMade < job.data.failures) {
        throw new Error(`attempt ${job.attemptsMade + 1} of ${job.id} fails`);
      }
      return job.data.n * 2;
    }, { connection, concurrency: 4 });
    worker.on('error', note('Worker'));
    worker.on('failed', (job, e) => { if (!job) note('Worker failed')(e); });

    if (!await within(done, 15000, false)) {
      errors.push(`scenario: not finished after 15 s (ticks ${ticked}, events ${JSON.stringify(seen)})`);
    }
    await sleep(300);  // Let a superfluous scheduler run show.

    const jobs = {};
    for (const id of fixedIds) {
      try {
        const job = await queue.getJob(id);
        jobs[id] = job && {
          name: job.name, data: job.data, state: await job.getState(),
          attemptsMade: job.attemptsMade, returnvalue: job.returnvalue,
          failedReason: job.failedReason ?? null,
        };
      } catch (e) {
        note(`getJob ${id}`)(e);
      }
    }
    let counts;
    try {
      counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized',
        'completed', 'failed', 'paused');
    } catch (e) {
      note('getJobCounts')(e);
    }
    let schedulers;
    try {
      schedulers = (await queue.getJobSchedulers()).map((s) => ({ key: s.key, every: s.every }));
    } catch (e) {
      note('getJobSchedulers')(e);
    }
    return {
      added, jobs, counts, ticked, schedulers,
      completedEvents: [...new Set(seen.completed)].sort(),
      failedEvents: seen.failed.sort(),
    };
  } finally {
    const close = (o) => o && within(o.close().catch(note('close')), 5000);
    await close(worker);
    await close(events);
    await close(queue);
  }
}

test('BullMQ: a queue scenario ends alike on redis-server and cairn-server', async (t) => {
  const seen = {};
  for (const [server, start] of Object.entries(servers)) {
    await t.test(server, async () => {
      const s = await start(join(work, server));
      const errors = [];
      try {
        seen[server] = await scenario(s.port, errors);
      } finally {
        await s.stop();
        for (const e of errors) console.log(`# ${server}: ${e}`);
      }
      assert.deepEqual(errors, [], `${server}: BullMQ reported errors`);
      const got = seen[server];
      // What the scenario must give on any Redis.
      assert.deepEqual(got.added, ['plain-1', 'plain-2', 'plain-3', 'delayed-1', 'prio-low',
        'prio-high', 'dedup-1', 'dedup-1', 'flaky-1', 'doomed-1']);
      assert.equal(got.jobs['dedup-1'].data.n, 7, 'the second add under one jobId is dropped');
      for (const [id, n] of [['plain-1', 1], ['plain-2', 2], ['plain-3', 3], ['delayed-1', 4],
        ['prio-low', 5], ['prio-high', 6], ['dedup-1', 7]]) {
        assert.deepEqual([got.jobs[id].state, got.jobs[id].attemptsMade, got.jobs[id].returnvalue],
          ['completed', 1, n * 2], id);
      }
      assert.deepEqual([got.jobs['flaky-1'].state, got.jobs['flaky-1'].attemptsMade,
        got.jobs['flaky-1'].returnvalue], ['completed', 3, 18]);
      assert.deepEqual([got.jobs['doomed-1'].state, got.jobs['doomed-1'].attemptsMade,
        got.jobs['doomed-1'].failedReason], ['failed', 2, 'attempt 2 of doomed-1 fails']);
      assert.equal(got.ticked, ticks);
      assert.deepEqual(got.counts, { waiting: 0, active: 0, delayed: 0, prioritized: 0,
        completed: 8 + ticks, failed: 1, paused: 0 });
      assert.deepEqual(got.completedEvents, fixedIds.filter((id) => id !== 'doomed-1'));
      assert.ok(got.failedEvents.includes('doomed-1'));
    });
  }
  if (Object.keys(seen).length === 2) {
    assert.deepEqual(seen['cairn-server'], seen['redis-server'],
      'cairn-server observed otherwise than redis-server');
  }
});
