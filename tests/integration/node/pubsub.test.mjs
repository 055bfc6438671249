// Pub/sub through real Node Redis clients, run unchanged against a real redis-server and
// against cairn-server (each started here on a free loopback port): ioredis 5 and node-redis 4
// over RESP2, node-redis 5 over RESP2 and RESP3. A subscriber with a channel and a pattern
// subscription gets every message of a publisher in publish order (pmessages with their
// pattern); PUBLISH counts the receivers; after UNSUBSCRIBE and PUNSUBSCRIBE nothing more
// arrives and the connection runs ordinary commands again; under RESP3 it runs them while
// subscribed. A subscriber that stops reading its socket is disconnected once its unsent
// messages reach `client-output-buffer-limit pubsub`: PUBLISH then counts no receiver, PUBSUB
// NUMSUB none, and the client, reading again, sees its connection close after a prefix of the
// messages. Whatever a scenario observes must be the same on both servers.
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
// `connect(port, { reconnect: false })` gives a client that stays closed once the server drops
// it; `watch(c)` returns a view of whether it has seen its connection close, and the names of
// the errors it reported meanwhile.
const ioredis = {
  resp: 2,
  connect: async (port, { reconnect = true } = {}) => {
    const options = { port, lazyConnect: true };
    if (!reconnect) options.retryStrategy = () => null;
    const c = new Redis(options);
    await c.connect();
    return c;
  },
  watch: (c) => {
    const seen = { closed: false, errors: [] };
    c.on('error', (e) => seen.errors.push(e.code ?? e.name));
    c.on('end', () => { seen.closed = true; });  // Closed for good: it will not reconnect.
    return { closed: () => seen.closed, errors: seen.errors };
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
    connect: async (port, { reconnect = true } = {}) => {
      const options = { socket: { port } };
      if (!reconnect) options.socket.reconnectStrategy = false;
      if (resp) options.RESP = resp;
      const c = create(options);
      c.on('error', () => {});
      await c.connect();
      return c;
    },
    // node-redis emits no 'end' when the server closes the connection: it reports an 'error'
    // and, not reconnecting, is no longer open.
    watch: (c) => {
      const errors = [];
      c.on('error', (e) => errors.push(e.code ?? e.constructor.name));
      return { closed: () => errors.length > 0 && !c.isOpen, errors };
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

// The net.Socket of the client `c` on the server at `port`, found without the client's
// internals: the connection's own CLIENT INFO gives its address, whose port is the socket's
// local one. Must run before `c` subscribes (under RESP2 it then takes no CLIENT command).
async function socketOf(client, c, port) {
  const info = String(await client.command(c, ['CLIENT', 'INFO']));
  const m = info.match(/\baddr=\S*:(\d+)\b/);
  assert.ok(m, `no addr in CLIENT INFO: ${info}`);
  const local = Number(m[1]);
  const sockets = process._getActiveHandles()
    .filter((h) => h.localPort === local && h.remotePort === port);
  assert.equal(sockets.length, 1, `sockets with local port ${local}`);
  return sockets[0];
}

// What one client observes of a subscriber that stops reading while messages are published to
// it, with a 1 MiB pubsub output-buffer limit on the server at `port`.
async function slowSubscriberScenario(client, port) {
  const pub = await client.connect(port);
  const sub = await client.connect(port, { reconnect: false });
  const got = [];
  client.listen(sub, got);
  const watch = client.watch(sub);
  const seen = {};
  try {
    // "pubsub 1mb 0 0": a hard limit only, no soft one, so the disconnection does not depend on
    // time. CONFIG GET shows it normalized to bytes, with the other classes unchanged.
    seen.configSet = String(await client.command(pub,
      ['CONFIG', 'SET', 'client-output-buffer-limit', 'pubsub 1mb 0 0']));
    // (A flat array under RESP2, a map under RESP3.)
    const config = await client.command(pub, ['CONFIG', 'GET', 'client-output-buffer-limit']);
    seen.configGet = (Array.isArray(config) ? config
      : [...(config instanceof Map ? config : Object.entries(config))].flat()).map(String);

    const socket = await socketOf(client, sub, port);
    await client.subscribe(sub, 'slow');
    // The client stops reading: what is published piles up in the kernel's socket buffers (a
    // few MiB on loopback), then in the server's output for the subscriber, up to the limit.
    socket.pause();

    // 64 KiB messages, each starting with its number, until PUBLISH finds no receiver: the
    // server dropped the subscriber. The cap only stops a server that never does.
    const filler = 'x'.repeat(64 << 10);
    const sent = [];
    let receivers = 1;
    while (receivers !== 0 && sent.length < 1024) {  // 64 MiB at most.
      const payload = String(sent.length).padStart(8, '0') + filler.slice(8);
      sent.push(payload);
      receivers = Number(await client.command(pub, ['PUBLISH', 'slow', payload]));
    }
    seen.droppedBeforeCap = receivers === 0;
    seen.numsub = (await client.command(pub, ['PUBSUB', 'NUMSUB', 'slow'])).map(String);
    // The publisher's own connection is unaffected.
    seen.publisherPing = String(await client.command(pub, ['PING']));

    // Reading again, the client gets what the socket buffers held, then the connection's end
    // (not waited for when the server kept the subscriber: the test then fails on that).
    socket.resume();
    if (seen.droppedBeforeCap) await until(watch.closed, 'the subscriber to see its close');
    seen.disconnected = watch.closed();
    seen.closeErrors = [...new Set(watch.errors)];
    // What arrived is the first messages published, whole and in order: none skipped. Some
    // did arrive (those the socket buffers held), so the server closed after writing them.
    seen.gotSome = got.length > 0;
    seen.gotPrefix = got.length < sent.length &&
      got.every(([kind, channel, payload], i) =>
        kind === 'message' && channel === 'slow' && payload === sent[i]);
  } finally {
    await client.close(sub).catch(() => {});
    await client.close(pub).catch(() => {});
  }
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

for (const [name, client] of Object.entries(clients)) {
  test(`${name}: a subscriber that stops reading is disconnected at the limit`, async (t) => {
    const seen = {};
    for (const [server, start] of Object.entries(servers)) {
      await t.test(server, async () => {
        const s = await start(join(work, `slow-${name.replace(/\W+/g, '-')}-${server}`));
        try {
          seen[server] = await slowSubscriberScenario(client, s.port);
          assert.equal(seen[server].configSet, 'OK');
          assert.deepEqual(seen[server].configGet, ['client-output-buffer-limit',
            'normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 0 0']);
          assert.equal(seen[server].droppedBeforeCap, true, 'PUBLISH never found 0 receivers');
          assert.deepEqual(seen[server].numsub, ['slow', '0']);
          assert.equal(seen[server].publisherPing, 'PONG');
          assert.equal(seen[server].disconnected, true);
          assert.equal(seen[server].gotSome, true, 'no message arrived before the close');
          assert.equal(seen[server].gotPrefix, true, 'the messages received are not a prefix');
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
