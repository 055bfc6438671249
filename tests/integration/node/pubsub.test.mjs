// Pub/sub through real Node Redis clients, run unchanged against a real redis-server and
// against cairn-server (each started here on a free loopback port): ioredis 5 and node-redis 4
// over RESP2, node-redis 5 over RESP2 and RESP3. A subscriber with a channel and a pattern
// subscription gets every message of a publisher in publish order (pmessages with their
// pattern); PUBLISH counts the receivers; after UNSUBSCRIBE and PUNSUBSCRIBE nothing more
// arrives and the connection runs ordinary commands again; under RESP3 it runs them while
// subscribed. Whatever a scenario observes must be the same on both servers.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { createClient as createClient5 } from 'redis';
import { createClient as createClient4 } from 'redis4';
import { startServer, startRedis } from './servers.mjs';

const work = mkdtempSync(join(tmpdir(), 'cairn-pubsub-'));
after(() => rmSync(work, { recursive: true, force: true }));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const servers = { 'redis-server': startRedis, 'cairn-server': (dir) => startServer(dir, ['--threads', '2']) };

// Waits until `done()` holds; a deadline that only catches a hang.
async function until(done, what) {
  for (let waited = 0; waited < 20000; waited += 5) {
    if (done()) return;
    await sleep(5);
  }
  assert.fail(`timed out waiting for ${what}`);
}

// One face over the clients: each records what arrives in `got` as
// ['message', channel, payload] or ['pmessage', pattern, channel, payload].
const ioredis = {
  resp: 2,
  connect: async (port) => {
    const c = new Redis({ port, lazyConnect: true });
    await c.connect();
    return c;
  },
  listen: (c, got) => {
    c.on('message', (channel, message) => got.push(['message', channel, message]));
    c.on('pmessage', (pattern, channel, message) => got.push(['pmessage', pattern, channel, message]));
  },
  subscribe: (c, channel) => c.subscribe(channel),
  psubscribe: (c, pattern) => c.psubscribe(pattern),
  unsubscribe: (c, channel) => c.unsubscribe(channel),
  punsubscribe: (c) => c.punsubscribe(),
  command: (c, args) => c.call(...args),
  close: (c) => c.quit(),
};

function nodeRedis(create, resp) {
  const sinks = new WeakMap();
  return {
    resp: resp ?? 2,
    connect: async (port) => {
      const options = { socket: { port } };
      if (resp) options.RESP = resp;
      const c = create(options);
      c.on('error', () => {});
      await c.connect();
      return c;
    },
    listen: (c, got) => sinks.set(c, got),
    subscribe: (c, channel) => c.subscribe(channel,
      (message, ch) => sinks.get(c).push(['message', String(ch), String(message)])),
    psubscribe: (c, pattern) => c.pSubscribe(pattern,
      (message, ch) => sinks.get(c).push(['pmessage', pattern, String(ch), String(message)])),
    unsubscribe: (c, channel) => c.unsubscribe(channel),
    punsubscribe: (c) => c.pUnsubscribe(),
    command: (c, args) => c.sendCommand(args),
    close: (c) => (c.quit ? c.quit() : c.close()),
  };
}

const clients = {
  'ioredis 5': ioredis,
  'node-redis 4': nodeRedis(createClient4),
  'node-redis 5': nodeRedis(createClient5, 2),
  'node-redis 5 RESP3': nodeRedis(createClient5, 3),
};

// What one client observes of pub/sub on the server at `port`.
async function scenario(client, port) {
  const sub = await client.connect(port);
  const pub = await client.connect(port);
  const got = [];
  client.listen(sub, got);
  const seen = {};
  try {
    await client.subscribe(sub, 'news');
    await client.psubscribe(sub, 'news.*');
    seen.numsub = (await client.command(pub, ['PUBSUB', 'NUMSUB', 'news', 'news.tech'])).map(String);
    seen.numpat = Number(await client.command(pub, ['PUBSUB', 'NUMPAT']));

    // One publisher, interleaving a channel and a pattern's channels: every message arrives,
    // in publish order.
    seen.counts = [];
    for (let i = 0; i < 200; i++) {
      const channel = i % 3 === 0 ? `news.${i % 2 ? 'tech' : 'sport'}` : 'news';
      seen.counts.push(Number(await client.command(pub, ['PUBLISH', channel, `m${i}`])));
    }
    await until(() => got.length >= 200, '200 messages');
    if (client.resp === 3) {
      // RESP3: ordinary commands run on the subscribed connection.
      await client.command(pub, ['SET', 'k', 'v']);
      seen.getWhileSubscribed = String(await client.command(sub, ['GET', 'k']));
    }

    // Unsubscribed from the channel, the pattern still delivers; then from the pattern too.
    await client.unsubscribe(sub, 'news');
    seen.afterUnsubscribe = [
      Number(await client.command(pub, ['PUBLISH', 'news', 'gone'])),
      Number(await client.command(pub, ['PUBLISH', 'news.x', 'still'])),
    ];
    await until(() => got.length >= 201, 'the pattern message');
    await client.punsubscribe(sub);
    seen.afterPunsubscribe = Number(await client.command(pub, ['PUBLISH', 'news.x', 'gone']));
    seen.numsubAfter = (await client.command(pub, ['PUBSUB', 'NUMSUB', 'news'])).map(String);
    // Back in normal mode, the subscriber's connection answers ordinary commands.
    seen.pingAfter = String(await client.command(sub, ['PING']));
    await sleep(50);  // Room for a stray message to arrive, were one sent.
    seen.got = got;
  } finally {
    await client.close(sub).catch(() => {});
    await client.close(pub).catch(() => {});
  }
  return seen;
}

function expected(resp) {
  const got = [];
  const counts = [];
  for (let i = 0; i < 200; i++) {
    counts.push(1);
    if (i % 3 === 0) {
      const channel = `news.${i % 2 ? 'tech' : 'sport'}`;
      got.push(['pmessage', 'news.*', channel, `m${i}`]);
    } else {
      got.push(['message', 'news', `m${i}`]);
    }
  }
  got.push(['pmessage', 'news.*', 'news.x', 'still']);
  const seen = {
    numsub: ['news', '1', 'news.tech', '0'],
    numpat: 1,
    counts,
    afterUnsubscribe: [0, 1],
    afterPunsubscribe: 0,
    numsubAfter: ['news', '0'],
    pingAfter: 'PONG',
    got,
  };
  if (resp === 3) seen.getWhileSubscribed = 'v';
  return seen;
}

for (const [name, client] of Object.entries(clients)) {
  test(`${name}: messages in order, patterns, unsubscribe`, async (t) => {
    const seen = {};
    for (const [server, start] of Object.entries(servers)) {
      await t.test(server, async () => {
        const s = await start(join(work, `${name.replace(/\W+/g, '-')}-${server}`));
        try {
          seen[server] = await scenario(client, s.port);
          assert.deepEqual(seen[server], expected(client.resp));
        } finally {
          await s.stop();
        }
      });
    }
    if (Object.keys(seen).length === 2) {
      assert.deepEqual(seen['cairn-server'], seen['redis-server'],
        'cairn-server observed otherwise than redis-server');
    }
  });
}
