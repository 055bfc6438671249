// cairn-server driven by real Node Redis clients, as programs written for Redis use it:
// ioredis (current major 5 and one back, 4) and node-redis (current major 5, over RESP2 and
// RESP3, and one back, 4). Each client connects with and without a password, runs SET/GET,
// a pipeline, MULTI/EXEC, and reconnects by itself after the server restarts, finding its
// data intact; blocking native commands park a client's connection while others go on. The
// server is started here, on a free port, from CAIRN_SERVER_BINARY.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis5 from 'ioredis';
import Redis4 from 'ioredis4';
import { createClient as createClient5 } from 'redis';
import { createClient as createClient4 } from 'redis4';
import { startServer } from './servers.mjs';

const work = mkdtempSync(join(tmpdir(), 'cairn-node-'));
after(() => rmSync(work, { recursive: true, force: true }));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Connects with a wrong password, without retrying; resolves with every error message seen.
async function refusedIoredis(Redis, port, password) {
  const errors = [];
  const c = new Redis({ port, password, lazyConnect: true, retryStrategy: () => null,
    maxRetriesPerRequest: 0 });
  c.on('error', (e) => errors.push(e.message));
  try {
    await c.connect();
    await c.get('k');
  } catch (e) {
    errors.push(e.message);
  } finally {
    c.disconnect();
  }
  return errors.join(' | ');
}

async function refusedNodeRedis(create, port, password, resp) {
  const errors = [];
  const options = { socket: { port, reconnectStrategy: false }, password };
  if (resp) options.RESP = resp;
  const c = create(options);
  c.on('error', (e) => errors.push(e.message));
  try {
    await c.connect();
    await c.get('k');
  } catch (e) {
    errors.push(e.message);
  } finally {
    try { c.destroy ? c.destroy() : await c.disconnect(); } catch { /* already closed */ }
  }
  return errors.join(' | ');
}

// A uniform face over the clients under test: both ioredis majors share one shape.
function ioredisClient(Redis) {
  return {
    connect: async (port, password) => {
      const c = new Redis({ port, password, lazyConnect: true, retryStrategy: () => 50 });
      c.on('error', () => {});  // Reconnection errors while the server restarts.
      await c.connect();
      return c;
    },
    set: (c, k, v) => c.set(k, v),
    get: (c, k) => c.get(k),
    pipeline: async (c, n) => {
      const p = c.pipeline();
      for (let i = 0; i < n; i++) p.incr('pipe');
      return (await p.exec()).map(([err, v]) => (err ? err : v));
    },
    multi: async (c) => (await c.multi().set('m', '1').incr('m').get('m').exec()).map(([, v]) => v),
    close: (c) => c.quit(),
    connectBad: (port, password) => refusedIoredis(Redis, port, password),
  };
}

const clients = { 'ioredis 5': ioredisClient(Redis5), 'ioredis 4': ioredisClient(Redis4) };

for (const [name, create, resp] of [['node-redis 5', createClient5, 2], ['node-redis 5 RESP3', createClient5, 3],
  ['node-redis 4', createClient4, undefined]]) {
  clients[name] = {
    connect: async (port, password) => {
      const options = { socket: { port, reconnectStrategy: () => 50 }, password };
      if (resp) options.RESP = resp;
      const c = create(options);
      c.on('error', () => {});  // Reconnection errors while the server restarts.
      await c.connect();
      return c;
    },
    set: (c, k, v) => c.set(k, v),
    get: (c, k) => c.get(k),
    pipeline: async (c, n) => {
      const m = c.multi();
      for (let i = 0; i < n; i++) m.incr('pipe');
      return m.execAsPipeline();
    },
    multi: (c) => c.multi().set('m', '1').incr('m').get('m').exec(),
    close: (c) => c.quit ? c.quit() : c.close(),
    connectBad: (port, password) => refusedNodeRedis(create, port, password, resp),
  };
}

for (const [name, client] of Object.entries(clients)) {
  test(`${name}: strings, pipeline, MULTI, restart`, async () => {
    const dir = join(work, name.replace(/\W+/g, '-'));
    let server = await startServer(dir);
    const port = server.port;
    const c = await client.connect(port);
    try {
      assert.equal(await client.set(c, 'greeting', 'hello'), 'OK');
      assert.equal(await client.get(c, 'greeting'), 'hello');
      assert.equal(await client.get(c, 'missing'), null);
      assert.deepEqual((await client.pipeline(c, 5)).map(Number), [1, 2, 3, 4, 5]);
      assert.deepEqual((await client.multi(c)).map(String), ['OK', '2', '2']);

      // The server restarts on the same port; the client reconnects by itself.
      await server.stop();
      server = await startServer(dir, [], port);
      let value;
      for (let i = 0; i < 200 && value === undefined; i++) {
        try { value = await client.get(c, 'greeting'); } catch { await sleep(50); }
      }
      assert.equal(value, 'hello', 'data intact after the restart');
    } finally {
      await client.close(c).catch(() => {});
      await server.stop();
    }
  });

  test(`${name}: password`, async () => {
    const server = await startServer(join(work, name.replace(/\W+/g, '-') + '-auth'),
      ['--requirepass', 's3cret']);
    try {
      const c = await client.connect(server.port, 's3cret');
      assert.equal(await client.set(c, 'k', 'v'), 'OK');
      assert.equal(await client.get(c, 'k'), 'v');
      await client.close(c);
      assert.match(await client.connectBad(server.port, 'wrong'), /WRONGPASS/);
    } finally {
      await server.stop();
    }
  });
}

// Waits until INFO reports `n` parked clients (a hang detector, not a timing check).
async function awaitBlocked(info, n) {
  for (let i = 0; i < 400; i++) {
    if ((await info()).includes(`blocked_clients:${n}\r\n`)) return;
    await sleep(25);
  }
  assert.fail(`never saw blocked_clients:${n}`);
}

// A reply field: RESP3 maps arrive as objects (or Maps), RESP2 as flat [key, value, …] arrays.
function field(reply, name) {
  if (reply instanceof Map) return reply.get(name);
  if (!Array.isArray(reply)) return reply[name];
  for (let i = 0; i + 1 < reply.length; i += 2) if (String(reply[i]) === name) return reply[i + 1];
  return undefined;
}

test('ioredis 5: QUEUE.CLAIM BLOCK parks its connection until QUEUE.ADD', async () => {
  const server = await startServer(join(work, 'ioredis-block'));
  const worker = new Redis5({ port: server.port });
  const other = new Redis5({ port: server.port });
  try {
    assert.equal(await other.call('QUEUE.GROUP', 'mail', 'senders'), 1);
    const claimed = worker.call('QUEUE.CLAIM', 'mail', 'senders', 'w1', 'BLOCK', '0');
    await awaitBlocked(() => other.info('clients'), 1);
    assert.equal(await other.get('unrelated'), null, 'other clients are served meanwhile');
    await other.call('QUEUE.ADD', 'mail', 'hello');
    const jobs = await claimed;
    assert.equal(jobs.length, 1);
    assert.equal(String(field(jobs[0], 'payload')), 'hello');
  } finally {
    worker.disconnect();
    other.disconnect();
    await server.stop();
  }
});

test('node-redis 5 RESP3: LEASE.ACQUIRE BLOCK parks its connection until LEASE.RELEASE', async () => {
  const server = await startServer(join(work, 'node-redis-block'));
  const holder = createClient5({ socket: { port: server.port }, RESP: 3 });
  const waiter = createClient5({ socket: { port: server.port }, RESP: 3 });
  await holder.connect();
  await waiter.connect();
  try {
    const held = await holder.sendCommand(['LEASE.ACQUIRE', 'db-migration', 'a', '60000']);
    assert.equal(field(held, 'acquired'), true);
    const waiting = waiter.sendCommand(['LEASE.ACQUIRE', 'db-migration', 'b', '60000', 'BLOCK', '0']);
    await awaitBlocked(() => holder.info('clients'), 1);
    assert.equal(await holder.sendCommand(['LEASE.RELEASE', 'db-migration', field(held, 'token')]),
      'OK');
    const got = await waiting;
    assert.equal(field(got, 'acquired'), true);
    assert.ok(Number(field(got, 'fencing')) > Number(field(held, 'fencing')));
  } finally {
    await holder.quit();
    await waiter.quit();
    await server.stop();
  }
});
