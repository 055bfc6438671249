// Servers for the Node integration tests: cairn-server from CAIRN_SERVER_BINARY, and a real
// redis-server (from PATH) to compare it with. Each helper starts a private server on a free
// loopback port and resolves with { port, stop } once the server says it is ready.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const binary = process.env.CAIRN_SERVER_BINARY;
assert.ok(binary, 'set CAIRN_SERVER_BINARY to the cairn-server to test');

// Spawns `command` and resolves with { port, stop } when its output matches `ready`, whose
// first group, if any, is the port; rejects if it exits first or stays silent for 30 s.
function spawnServer(command, args, ready, port) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';  // Output until the ready line, for the error messages.
    let started = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command}: no ready line: ${out}`));
    }, 30000);
    const onOutput = (chunk) => {
      if (started) return;
      out += chunk;
      const m = out.match(ready);
      if (m) {
        started = true;
        clearTimeout(timer);
        const stop = () => new Promise((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done(child.exitCode);
          child.once('exit', (code) => done(code));
          child.kill('SIGTERM');
        });
        resolve({ port: m[1] ? Number(m[1]) : port, stop });
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', (chunk) => { if (!started) out += chunk; });
    child.once('error', (e) => {  // Not started at all, e.g. not on PATH.
      clearTimeout(timer);
      reject(new Error(`${command}: ${e.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code}: ${out}`));
    });
  });
}

// Starts cairn-server; port 0 lets it pick a free port, which it reports in its ready line.
// CAIRN_TEST_THREADS, when set, is its io thread count (unless `extra` names one): tools/test
// runs the suites at 1, 2 and 4.
export function startServer(dir, extra = [], port = 0) {
  const threads = process.env.CAIRN_TEST_THREADS;
  const threadArgs = threads && !extra.includes('--threads') ? ['--threads', threads] : [];
  return spawnServer(binary,
    ['--port', String(port), '--dir', dir, '--durability', 'none', ...threadArgs, ...extra],
    /cairn-server ready port=(\d+)/, port);
}

// A loopback port no one listens on right now.
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// Starts redis-server without persistence, its files in `dir`. Redis cannot pick its own port,
// so it gets a free one; should another process take it first, it tries the next free one.
export async function startRedis(dir) {
  mkdirSync(dir, { recursive: true });
  let lastError;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    try {
      return await spawnServer('redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
          '--dir', dir],
        /Ready to accept connections/, port);
    } catch (e) {
      lastError = e;
      if (!/Address already in use/.test(e.message)) throw e;
    }
  }
  throw lastError;
}

const bothServers = { 'redis-server': startRedis, 'cairn-server': (dir) => startServer(dir) };

// Runs `scenario(port)` as a subtest against a fresh redis-server, then a fresh cairn-server,
// each with its files under `work`; `check` (optional) must pass on what each returned, and
// when both pass, what they returned (their observations) must be equal.
export async function onBothServers(t, work, name, scenario, check = () => {}) {
  const seen = {};
  for (const [server, start] of Object.entries(bothServers)) {
    await t.test(server, async () => {
      const s = await start(join(work, `${name}-${server}`));
      try {
        seen[server] = await scenario(s.port);
      } finally {
        await s.stop();
      }
      check(seen[server]);
    });
  }
  if (Object.keys(seen).length === 2) {
    assert.deepEqual(seen['cairn-server'], seen['redis-server'],
      'cairn-server observed otherwise than redis-server');
  }
}
