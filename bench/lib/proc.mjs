// @ts-check
// Child processes of the bench: spawn a server, wait for it to answer, sample its RSS, stop it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { authHeaders } from './auth.mjs';

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();
/** `--pin`: the CPU the servers run on; the bench itself takes the others. */
export const SERVER_CPU = 0;

/** Kills every server the bench started (by pid) when the bench exits, however it exits. */
export function killAllChildren() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
}
process.on('exit', killAllChildren);
// Ctrl-C or a kill: 'exit' does not run on a signal, and a server left running (under valgrind,
// a core's worth of warm-up) would go on loading the machine.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    killAllChildren();
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  });
}

/** A free TCP port on 127.0.0.1. @returns {Promise<number>} */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `[prefix] node [nodeArgs] script args` with env (under `taskset` on SERVER_CPU when `pin`); any exit before `stop()` is an error that
 * fails the run (reported through `exited`). stdout/stderr are kept for the error message.
 * @param {{ name: string, nodeArgs?: string[], script: string, args?: string[], env: Record<string, string>, cwd: string, pin?: boolean, prefix?: string[] }} options
 */
export function startProcess({ name, nodeArgs = [], script, args = [], env, cwd, pin = false, prefix = [] }) {
  const startedAt = performance.now();
  // pin: the server on CPU 0 (taskset execs node, so the pid stays the server's); `prefix`: a
  // command that runs node in the same process (valgrind, see callgrind.mjs).
  const [program = process.execPath, ...command] = [...(pin ? ['taskset', '-c', String(SERVER_CPU)] : []), ...prefix, process.execPath];
  const child = spawn(program, [...command, ...nodeArgs, script, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let output = '';
  const keep = (/** @type {Buffer} */ chunk) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let stopping = false;
  /** @type {Promise<{ code: number | null, signal: NodeJS.Signals | null }>} */
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  const handle = {
    name,
    pid: /** @type {number} */ (child.pid),
    startedAt,
    output: () => output,
    /** Rejects if the process ends while it should be serving. */
    /** @type {Promise<never>} */
    unexpectedExit: exited.then(({ code, signal }) => {
      if (!stopping) throw new Error(`${name} exited unexpectedly (code ${code}, signal ${signal})\n${output}`);
      return /** @type {Promise<never>} */ (new Promise(() => undefined));
    }),
    async stop(timeoutMs = 15000) {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  handle.unexpectedExit.catch(() => undefined);
  return handle;
}

/**
 * One HTTP request; resolves `{ status, body }` (body parsed as JSON when possible).
 * @param {string} baseUrl
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 * @returns {Promise<{ status: number, body: any, text: string }>}
 */
export function request(baseUrl, method, path, body, headers = authHeaders()) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      new URL(path, baseUrl),
      {
        method,
        agent: false,
        headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
      },
      (res) => {
        /** @type {Buffer[]} */
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let parsed = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text for the error message
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * Like `request`, but any non-2xx answer throws with the body in the message.
 * @param {string} baseUrl
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 */
export async function requestOk(baseUrl, method, path, body) {
  const reply = await request(baseUrl, method, path, body);
  if (reply.status < 200 || reply.status >= 300) {
    throw new Error(`${method} ${path} answered ${reply.status}: ${reply.text.slice(0, 500)}`);
  }
  return reply;
}

/**
 * Polls `path` until it answers 2xx; returns the milliseconds since the process was spawned.
 * Connection refusals are retried every `intervalMs`; the process dying fails at once.
 * @param {{ name: string, startedAt: number, output: () => string, unexpectedExit: Promise<never> }} handle
 * @param {string} baseUrl
 * @param {string} path
 * @param {{ timeoutMs?: number, intervalMs?: number }} [options]
 * @returns {Promise<number>}
 */
export async function waitForAnswer(handle, baseUrl, path, { timeoutMs = 20000, intervalMs = 2 } = {}) {
  const deadline = performance.now() + timeoutMs;
  /** @type {unknown} */
  let lastError;
  const poll = async () => {
    while (performance.now() < deadline) {
      try {
        const reply = await request(baseUrl, 'GET', path);
        if (reply.status >= 200 && reply.status < 300) return performance.now() - handle.startedAt;
        lastError = new Error(`GET ${path} answered ${reply.status}: ${reply.text.slice(0, 300)}`);
      } catch (error) {
        lastError = error;
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
    throw new Error(`${handle.name} did not answer GET ${path} within ${timeoutMs} ms: ${lastError instanceof Error ? lastError.message : lastError}\n${handle.output()}`);
  };
  return Promise.race([poll(), handle.unexpectedExit]);
}

/** Resident set size of a process in bytes (Linux /proc), or null elsewhere. @param {number} pid @returns {number | null} */
export function rssOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Samples the RSS of `pid` every `everyMs` until `stop()`, which returns the peak in bytes. @param {number} pid */
export function sampleRss(pid, everyMs = 100) {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    const rss = rssOf(pid);
    if (rss !== null && (peak === null || rss > peak)) peak = rss;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const rss = rssOf(pid);
      if (rss !== null && (peak === null || rss > peak)) peak = rss;
      return peak;
    },
  };
}
