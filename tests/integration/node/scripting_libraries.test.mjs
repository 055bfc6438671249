// Real npm libraries built on Redis, run unchanged against cairn-server and against a real
// redis-server, to show that code written for Redis works on Cairn. The first two keep their
// atomic logic in Lua scripts run with EVALSHA/EVAL, which is what this file is chiefly about:
//   - @sesamecare-oss/redlock (ioredis): acquire, extend and release a lock; a second client is
//     refused while the lock is held, also for part of a multi-resource lock, and after expiry;
//     ioredis falls back from EVALSHA to EVAL after SCRIPT FLUSH;
//   - rate-limiter-flexible RateLimiterRedis (ioredis and node-redis): consume until refused,
//     reward, block and delete, with exact point counts.
// The idempotency libraries use plain SET NX/GET/DEL, but follow the same pattern:
//   - @node-idempotency/core with its Redis storage adapter (node-redis 4);
//   - @aws-lambda-powertools/idempotency with its cache persistence layer (@redis/client), which
//     needs no AWS service: a plain object stands in for the Lambda context.
// Every scenario runs once per server, each started here on a free loopback port; whatever it
// observes must be the same on both servers, and correct on each.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { createClient as createNodeRedis } from 'redis';
import { createClient as createRedisClient } from '@redis/client';
import { Redlock, ExecutionError } from '@sesamecare-oss/redlock';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { Idempotency, IdempotencyError, IdempotencyErrorCodes } from '@node-idempotency/core';
import { RedisStorageAdapter } from '@node-idempotency/storage-adapter-redis';
import { makeIdempotent, IdempotencyConfig, IdempotencyValidationError,
  IdempotencyAlreadyInProgressError } from '@aws-lambda-powertools/idempotency';
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import { onBothServers } from './servers.mjs';

const work = mkdtempSync(join(tmpdir(), 'cairn-scripting-'));
after(() => rmSync(work, { recursive: true, force: true }));

const host = '127.0.0.1';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Resolves with what `promise` rejected with; fails if it resolved.
async function rejection(promise, what) {
  return promise.then((v) => assert.fail(`${what}: expected a refusal, got ${JSON.stringify(v)}`),
    (e) => e);
}

// ---- @sesamecare-oss/redlock ----------------------------------------------------------------

// The servers' reasons for a failed redlock operation: "Name: message" of every vote against
// it (a ResourceLockedError when the script said no, a ReplyError when the server failed it).
async function votesAgainst(error) {
  const attempts = await Promise.all(error.attempts);
  return attempts.flatMap((a) => [...a.votesAgainst.values()].map((e) => `${e.name}: ${e.message}`));
}

// Awaits a redlock operation that must be refused; resolves with the servers' reasons.
async function refusedLock(operation, what) {
  const error = await rejection(operation, what);
  assert.ok(error instanceof ExecutionError, `${what}: ${error}`);
  return votesAgainst(error);
}

// Awaits a redlock operation that must succeed; if refused, fails with the servers' reasons.
async function granted(operation, what) {
  try {
    return await operation;
  } catch (e) {
    if (!(e instanceof ExecutionError)) throw e;
    return assert.fail(`${what}: ${e.message} ${JSON.stringify(await votesAgainst(e))}`);
  }
}

// Asserts that `key` holds `value` and expires in (0, ms] milliseconds.
async function assertHeld(client, key, value, ms) {
  assert.equal(await client.get(key), value, `${key} holds the lock's value`);
  const ttl = await client.pttl(key);
  assert.ok(ttl > 0 && ttl <= ms, `${key} expires in (0, ${ms}] ms, not ${ttl}`);
}

test('@sesamecare-oss/redlock with ioredis: acquire, extend, release, contention', (t) =>
  onBothServers(t, work, 'redlock', async (port) => {
    const a = new Redis({ host, port });
    const b = new Redis({ host, port });
    // No retries: a refused lock fails at once rather than after the default ten.
    const lockerA = new Redlock([a], { retryCount: 0 });
    const lockerB = new Redlock([b], { retryCount: 0 });
    const seen = {};
    try {
      // Acquire, contention, extend, release.
      let lock = await granted(lockerA.acquire(['order:1'], 2000), 'A acquires');
      await assertHeld(a, 'order:1', lock.value, 2000);
      seen.contended = await refusedLock(lockerB.acquire(['order:1'], 2000), 'B while A holds');
      await assertHeld(a, 'order:1', lock.value, 2000);
      lock = await granted(lock.extend(60000), 'A extends');
      const ttl = await a.pttl('order:1');
      assert.ok(ttl > 2000 && ttl <= 60000, `extended to 60000 ms, pttl ${ttl}`);
      seen.released = (await granted(lock.release(), 'A releases')).attempts.length;
      assert.equal(await a.exists('order:1'), 0, 'release deletes the key');
      const lockB = await granted(lockerB.acquire(['order:1'], 2000), 'B acquires after');
      await assertHeld(b, 'order:1', lockB.value, 2000);
      await granted(lockB.release(), 'B releases');

      // A multi-resource lock is all or nothing: B's lock on seat:2 and seat:3 fails on seat:2
      // and leaves seat:3 alone.
      const seats = await granted(lockerA.acquire(['seat:1', 'seat:2'], 5000), 'A on seat:1+2');
      seen.partial = await refusedLock(lockerB.acquire(['seat:2', 'seat:3'], 5000), 'B on seat:2+3');
      assert.equal(await b.exists('seat:3'), 0, 'a refused lock sets none of its keys');
      await granted(seats.release(), 'A releases seats');
      const seatsB = await granted(lockerB.acquire(['seat:2', 'seat:3'], 5000), 'B after A');
      await assertHeld(b, 'seat:3', seatsB.value, 5000);
      await granted(seatsB.release(), 'B releases seats');

      // A lock left to expire: B gets it, and A's late release does not remove B's.
      const short = await granted(lockerA.acquire(['job'], 150), 'A on job');
      await sleep(300);
      const lockJob = await granted(lockerB.acquire(['job'], 5000), 'B on expired job');
      seen.lateRelease = await refusedLock(short.release(), "A's release after expiry");
      await assertHeld(b, 'job', lockJob.value, 5000);

      // The scripts are gone after SCRIPT FLUSH; ioredis gets NOSCRIPT for EVALSHA and sends EVAL.
      assert.equal(await a.script('FLUSH'), 'OK');
      await granted(lockJob.release(), 'B releases after SCRIPT FLUSH');
      assert.equal(await a.exists('job'), 0, 'released after SCRIPT FLUSH');

      // using(): the lock is held while the routine runs and released after it.
      seen.using = await granted(lockerA.using(['report'], 2000, async () =>
        refusedLock(lockerB.acquire(['report'], 2000), 'B during using()')), 'A using()');
      assert.equal(await a.exists('report'), 0, 'released after using()');
      return seen;
    } finally {
      a.disconnect();
      b.disconnect();
    }
  }));

// ---- rate-limiter-flexible --------------------------------------------------------------------

// The parts of a RateLimiterRes that must be exact; msBeforeNext must lie in (0, ms].
function points(res, ms) {
  assert.ok(res instanceof RateLimiterRes, `a RateLimiterRes, not ${res}`);
  assert.ok(res.msBeforeNext > 0 && res.msBeforeNext <= ms,
    `msBeforeNext in (0, ${ms}], not ${res.msBeforeNext}`);
  return { consumed: res.consumedPoints, remaining: res.remainingPoints,
    first: res.isFirstInDuration };
}

const limiterClients = {
  ioredis: {
    connect: async (port) => new Redis({ host, port }),
    options: {},
    close: (c) => c.quit(),
  },
  'node-redis 5': {
    connect: (port) => createNodeRedis({ socket: { host, port } }).connect(),
    options: { useRedisPackage: true },  // The documented switch for node-redis v4 and later.
    close: (c) => c.close(),
  },
};

for (const [name, client] of Object.entries(limiterClients)) {
  test(`rate-limiter-flexible RateLimiterRedis with ${name}: consume until refused`, (t) =>
    onBothServers(t, work, `limiter-${name.replace(/\W+/g, '-')}`, async (port) => {
      const c = await client.connect(port);
      try {
        const limiter = new RateLimiterRedis({ storeClient: c, ...client.options, keyPrefix: 'api',
          points: 5, duration: 60 });
        const seen = { consumed: [] };
        for (let i = 1; i <= 5; i++) {
          const res = points(await limiter.consume('10.0.0.1'), 60000);
          assert.deepEqual(res, { consumed: i, remaining: 5 - i, first: i === 1 });
          seen.consumed.push(res);
        }
        seen.refused = points(await rejection(limiter.consume('10.0.0.1'), 'sixth point'), 60000);
        assert.deepEqual(seen.refused, { consumed: 6, remaining: 0, first: false });

        seen.get = points(await limiter.get('10.0.0.1'), 60000);
        assert.deepEqual(seen.get, { consumed: 6, remaining: 0, first: false });
        seen.reward = points(await limiter.reward('10.0.0.1', 3), 60000);
        assert.deepEqual(seen.reward, { consumed: 3, remaining: 2, first: false });
        seen.afterReward = points(await limiter.consume('10.0.0.1', 2), 60000);
        assert.deepEqual(seen.afterReward, { consumed: 5, remaining: 0, first: false });

        // Several points at once, on a key of its own.
        seen.many = points(await limiter.consume('10.0.0.2', 3), 60000);
        assert.deepEqual(seen.many, { consumed: 3, remaining: 2, first: true });
        seen.tooMany = points(await rejection(limiter.consume('10.0.0.2', 3), 'three more'), 60000);
        assert.deepEqual(seen.tooMany, { consumed: 6, remaining: 0, first: false });

        // block() sets the key for 30 s; delete() removes it.
        await limiter.block('10.0.0.3', 30);
        seen.blocked = points(await limiter.get('10.0.0.3'), 30000);
        assert.deepEqual(seen.blocked, { consumed: 6, remaining: 0, first: false });
        seen.blockedConsume = points(await rejection(limiter.consume('10.0.0.3'), 'blocked'), 30000);
        assert.deepEqual(seen.blockedConsume, { consumed: 7, remaining: 0, first: false });
        assert.equal(await limiter.delete('10.0.0.3'), true);
        assert.equal(await limiter.get('10.0.0.3'), null);
        seen.afterDelete = points(await limiter.consume('10.0.0.3'), 60000);
        assert.deepEqual(seen.afterDelete, { consumed: 1, remaining: 4, first: true });
        return seen;
      } finally {
        await client.close(c);
      }
    }));
}

// ---- @node-idempotency/core -------------------------------------------------------------------

test('@node-idempotency/core with storage-adapter-redis: replay and fingerprint mismatch', (t) =>
  onBothServers(t, work, 'node-idempotency', async (port) => {
    const storage = new RedisStorageAdapter({ socket: { host, port } });
    await storage.connect();
    try {
      const idempotency = new Idempotency(storage);
      const request = (key, body) => ({ method: 'POST', path: '/charges',
        headers: { 'Idempotency-Key': key }, body });
      const failure = async (promise, what) => {
        const e = await rejection(promise, what);
        assert.ok(e instanceof IdempotencyError, `${what}: ${e}`);
        return e.code;
      };
      const seen = {};

      // The first request goes through and its response is stored.
      const charge = request('charge-1', { customer: 'c1', amount: 100 });
      assert.equal(await idempotency.onRequest(charge), undefined, 'a new request proceeds');
      // A duplicate while the first is still being handled is refused.
      seen.inProgress = await failure(idempotency.onRequest(charge), 'duplicate in progress');
      assert.equal(seen.inProgress, IdempotencyErrorCodes.REQUEST_IN_PROGRESS);
      const response = { body: { id: 'ch_1', amount: 100 }, additional: { status: 201 } };
      await idempotency.onResponse(charge, response);

      // A duplicate gets the stored response; the same key with another body is refused.
      seen.replayed = await idempotency.onRequest(
        request('charge-1', { customer: 'c1', amount: 100 }));
      assert.deepEqual(seen.replayed, response);
      seen.mismatch = await failure(
        idempotency.onRequest(request('charge-1', { customer: 'c1', amount: 200 })), 'other body');
      assert.equal(seen.mismatch, IdempotencyErrorCodes.IDEMPOTENCY_FINGERPRINT_MISSMATCH);
      // Another key is a new request.
      assert.equal(await idempotency.onRequest(request('charge-2', { customer: 'c1', amount: 200 })),
        undefined);
      return seen;
    } finally {
      await storage.disconnect();
    }
  }));

// ---- @aws-lambda-powertools/idempotency -------------------------------------------------------

// Stands in for the Lambda context, which the library asks only for the time left.
const lambdaContext = { functionName: 'charge', getRemainingTimeInMillis: () => 60000 };

test('@aws-lambda-powertools/idempotency, cache persistence layer: replay, in progress, retry',
  (t) => onBothServers(t, work, 'powertools', async (port) => {
    const client = await createRedisClient({ socket: { host, port } }).connect();
    try {
      const runs = [];
      let decline = false;
      let hold = null;  // When set, the next run signals hold.started and waits for hold.released.
      const charge = async (event) => {
        runs.push(event.amount);
        if (hold) {
          const { started, released } = hold;
          hold = null;
          started();
          await released;
        }
        if (decline) throw new Error('card declined');
        return { orderId: event.orderId, charged: event.amount, run: runs.length };
      };
      // A persistence layer is configured by its first handler, so each handler gets its own.
      const idempotent = (options) => makeIdempotent(charge, {
        persistenceStore: new CachePersistenceLayer({ client }),
        config: new IdempotencyConfig({ eventKeyJmesPath: 'orderId', ...options }),
      });
      const handler = idempotent({});
      const validated = idempotent({ payloadValidationJmesPath: 'amount' });
      const seen = {};

      // A duplicate gets the stored result; the function ran once.
      seen.first = await handler({ orderId: 'o-1', amount: 100 }, lambdaContext);
      seen.replayed = await handler({ orderId: 'o-1', amount: 100 }, lambdaContext);
      assert.deepEqual(seen.first, { orderId: 'o-1', charged: 100, run: 1 });
      assert.deepEqual(seen.replayed, seen.first);
      assert.deepEqual(runs, [100]);

      // A failed run leaves no record behind: the retry runs the function again.
      decline = true;
      seen.declined = (await rejection(handler({ orderId: 'o-2', amount: 5 }, lambdaContext),
        'declined')).message;
      decline = false;
      seen.retried = await handler({ orderId: 'o-2', amount: 5 }, lambdaContext);
      assert.deepEqual(seen.retried, { orderId: 'o-2', charged: 5, run: 3 });

      // While a run is in progress the same order is refused; with another amount, the payload
      // check against the stored record refuses it as a mismatch.
      let release;
      const started = new Promise((resolve) => {
        hold = { started: resolve, released: new Promise((r) => { release = r; }) };
      });
      const slow = validated({ orderId: 'o-3', amount: 7 }, lambdaContext);
      slow.catch(() => {});  // Awaited below; no unhandled rejection should a check fail first.
      await started;
      const busy = await rejection(validated({ orderId: 'o-3', amount: 7 }, lambdaContext), 'busy');
      assert.ok(busy instanceof IdempotencyAlreadyInProgressError, `same order in progress: ${busy}`);
      const other = await rejection(validated({ orderId: 'o-3', amount: 8 }, lambdaContext), 'other');
      assert.ok(other instanceof IdempotencyValidationError, `other amount in progress: ${other}`);
      release();
      seen.slow = await slow;
      assert.deepEqual(seen.slow, { orderId: 'o-3', charged: 7, run: 4 });
      const later = await rejection(validated({ orderId: 'o-3', amount: 8 }, lambdaContext), 'later');
      assert.ok(later instanceof IdempotencyValidationError, `other amount when done: ${later}`);
      assert.deepEqual(runs, [100, 5, 5, 7]);
      seen.refusals = [busy.name, other.name, later.name];
      return seen;
    } finally {
      await client.close();
    }
  }));
