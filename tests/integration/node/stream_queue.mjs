// A job queue built on a Redis stream and one consumer group, written for the stream-queue
// tests: the pattern many Node queue libraries use, kept small enough to read at a glance.
//
//   <name>:stream   the jobs to run; a job is an entry with fields job, attempt, data
//   <name>:delayed  sorted set of retries, scored by when they are due (ms since the epoch)
//   <name>:done     stream of the jobs that succeeded (fields job, attempts)
//   <name>:dead     stream of the jobs that failed maxAttempts times (job, attempts, error)
//
// A Worker reads new entries with XREADGROUP BLOCK, runs the handler and acknowledges the
// entry. A handler that throws sends the job to the delayed set with exponential backoff, or
// after maxAttempts to the dead stream; every worker moves due retries back onto the stream.
// Entries a consumer read but never acknowledged (it died) are taken over with XAUTOCLAIM
// once they have been idle for claimIdleMs.
//
// Delivery is at least once: a slow consumer's entry may be claimed and run a second time.
// The outcome is recorded once all the same, because only the consumer whose XACK removed
// the entry from the group's pending list (XACK replies 1; any later XACK replies 0) goes on
// to record it.

export class StreamQueue {
  constructor(redis, name, { group = 'workers', maxAttempts = 4, backoffMs = 10,
    backoffMaxMs = 1000, claimIdleMs = 100 } = {}) {
    this.redis = redis;
    this.group = group;
    this.maxAttempts = maxAttempts;
    this.backoffMs = backoffMs;
    this.backoffMaxMs = backoffMaxMs;
    this.claimIdleMs = claimIdleMs;
    this.stream = `${name}:stream`;
    this.delayed = `${name}:delayed`;
    this.done = `${name}:done`;
    this.dead = `${name}:dead`;
  }

  // Creates the group from the stream's start (so jobs added before it are read too), and
  // the stream with it. A second call finds the group there (BUSYGROUP) and leaves it.
  async createGroup() {
    try {
      await this.redis.xgroup('CREATE', this.stream, this.group, '0', 'MKSTREAM');
    } catch (e) {
      if (!/^BUSYGROUP/.test(e.message)) throw e;
    }
  }

  // Adds jobs ({ job, data }) in one pipeline; resolves with their entry ids.
  async add(jobs, redis = this.redis) {
    const p = redis.pipeline();
    for (const { job, data } of jobs) {
      p.xadd(this.stream, '*', 'job', job, 'attempt', '1', 'data', JSON.stringify(data ?? null));
    }
    return (await p.exec()).map(([err, id]) => { if (err) throw err; return id; });
  }

  // How long a job waits before attempt `attempt` + 1: doubling from backoffMs, capped.
  backoff(attempt) {
    return Math.min(this.backoffMs * 2 ** (attempt - 1), this.backoffMaxMs);
  }

  // Moves the retries that are due back onto the stream. Workers race for them: ZREM's reply
  // tells which one took a retry, so that it is added back once. (A worker dying between the
  // ZREM and the XADD would lose the retry; a production queue does both in one script. The
  // tests kill workers only inside a handler.)
  async moveDue(redis) {
    const due = await redis.zrangebyscore(this.delayed, '-inf', Date.now(), 'LIMIT', 0, 100);
    for (const member of due) {
      if (await redis.zrem(this.delayed, member) !== 1) continue;
      const { job, attempt, data } = JSON.parse(member);
      await redis.xadd(this.stream, '*', 'job', job, 'attempt', String(attempt), 'data', data);
    }
  }
}

// Entry fields come as a flat [name, value, ...] list.
function fields(flat) {
  const o = {};
  for (let i = 0; i < flat.length; i += 2) o[flat[i]] = flat[i + 1];
  return o;
}

export class Worker {
  #killed = false;  // Set by kill(): the loop then leaves without another word to Redis.

  // `redis` is the worker's own connection (XREADGROUP BLOCK holds it); `handler` gets
  // { job, attempt, data, id } and throws to fail the attempt.
  constructor(queue, redis, consumer, handler, { count = 10, blockMs = 50 } = {}) {
    Object.assign(this, { queue, redis, consumer, handler, count, blockMs });
    this.running = false;
    this.claimCursor = '0-0';
    this.claimed = [];     // Ids this worker took over with XAUTOCLAIM.
    this.unacked = new Set();  // Ids delivered to this worker and not yet settled by it.
    this.errors = [];      // Errors from Redis, for the test to show.
  }

  start() {
    this.running = true;
    this.finished = this.#loop();
    return this;
  }

  // Stops after the current round (at most blockMs away); resolves when the loop has left.
  stop() {
    this.running = false;
    return this.finished;
  }

  // Dies as a crashed process would: the connection drops, nothing is acknowledged, and the
  // entries it holds stay pending under its name.
  kill() {
    this.#killed = true;
    this.running = false;
    this.redis.disconnect();
  }

  async #loop() {
    while (this.running) {
      try {
        await this.queue.moveDue(this.redis);
        for (const entry of await this.#claim()) await this.#run(entry);
        const reply = await this.redis.xreadgroup('GROUP', this.queue.group, this.consumer,
          'COUNT', this.count, 'BLOCK', this.blockMs, 'STREAMS', this.queue.stream, '>');
        const entries = reply ? reply[0][1] : [];  // null when BLOCK timed out.
        for (const [id] of entries) this.unacked.add(id);
        for (const entry of entries) {
          if (!this.running) break;
          await this.#run(entry);
        }
      } catch (e) {
        if (this.#killed) return;
        this.errors.push(`${this.consumer}: ${e.message}`);
        if (this.errors.length > 20) return;  // Something is broken for good: stop spinning.
      }
    }
  }

  // Takes over up to `count` entries idle for claimIdleMs, walking the pending list with the
  // cursor XAUTOCLAIM hands back (0-0 once it has gone round).
  async #claim() {
    const [cursor, entries] = await this.redis.xautoclaim(this.queue.stream, this.queue.group,
      this.consumer, this.queue.claimIdleMs, this.claimCursor, 'COUNT', this.count);
    this.claimCursor = cursor;
    for (const [id] of entries) {
      this.claimed.push(id);
      this.unacked.add(id);
    }
    return entries;
  }

  async #run([id, flat]) {
    const { job, attempt: a, data } = fields(flat);
    const attempt = Number(a);
    let error;
    try {
      await this.handler({ job, attempt, data: JSON.parse(data), id });
    } catch (e) {
      error = e;
    }
    if (this.#killed) return;  // Died in the handler: the entry stays pending.
    const q = this.queue;
    const acked = await this.redis.xack(q.stream, q.group, id);
    this.unacked.delete(id);
    if (acked !== 1) return;  // Another consumer settled this delivery first.
    if (!error) {
      await this.redis.xadd(q.done, '*', 'job', job, 'attempts', String(attempt));
    } else if (attempt >= q.maxAttempts) {
      await this.redis.xadd(q.dead, '*', 'job', job, 'attempts', String(attempt),
        'error', error.message);
    } else {
      const retry = JSON.stringify({ job, attempt: attempt + 1, data });
      await this.redis.zadd(q.delayed, Date.now() + q.backoff(attempt), retry);
    }
  }
}
