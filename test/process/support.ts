/**
 * Runs Corral as a real child process (`node bin/corral.js start`) for process-level tests.
 * The tests rely on `dist/` being built (`npm test` builds first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = fileURLToPath(new URL('../../bin/corral.js', import.meta.url));

/** Fails early with a clear message when `npm run build` has not run. */
export function requireBuild(): void {
  if (!existsSync(new URL('../../dist/main.js', import.meta.url))) {
    throw new Error('dist/main.js is missing: run `npm run build` before the process tests');
  }
}

/** A port that was free a moment ago: listen on 0, read the port, close. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port'))));
    });
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CorralProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited (with its code or signal). */
  readonly exited: Promise<Exit>;
  /** Whether the process has exited. */
  hasExited(): boolean;
  /** fetch relative to the base URL; a JSON body is serialised with the right content type. */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }>;
  /** `Authorization: Bearer` of the root user (signed in once, on first use). */
  authHeaders(): Promise<Record<string, string>>;
  /** Sends SIGTERM and awaits the exit (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<Exit>;
  /** SIGKILL, no waiting for grace. */
  kill(): Promise<Exit>;
}

export interface SpawnOptions {
  /** Environment added to a clean base (PATH, HOME, and the chosen port). */
  env?: Record<string, string>;
  args?: string[];
  port?: number;
}

/** The root user every spawned process starts with (unless the test's env says otherwise). */
export const PROCESS_ROOT = { email: 'root@corral.test', password: 'root-password-for-process-tests' } as const;

/** Every child spawned through this module; `killAll` ends those still running. */
const running = new Set<CorralProcess>();

/** Spawns `node bin/corral.js <args>` without waiting for anything. */
export async function spawnCorral(options: SpawnOptions = {}): Promise<CorralProcess> {
  requireBuild();
  const port = options.port ?? (await freePort());
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    CORRAL_ROOT_EMAIL: PROCESS_ROOT.email,
    CORRAL_ROOT_PASSWORD: PROCESS_ROOT.password,
    // One process unless a test asks for workers: most tests signal, kill and read the output
    // of exactly one server process, and every extra worker costs start-up time on a shared
    // machine. test/process/workers.test.ts runs several on purpose.
    CORRAL_WORKERS: '1',
    ...options.env,
  };
  const child = spawn(process.execPath, [BIN, ...(options.args ?? ['start'])], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  let done = false;
  const exited = new Promise<Exit>((resolve) => {
    child.on('error', () => {
      done = true;
      resolve({ code: null, signal: null });
    });
    // 'close' waits for stdio to end, so stdout()/stderr() are complete afterwards.
    child.on('close', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  let token: Promise<string> | undefined;
  const signIn = async (): Promise<string> => {
    const response = await fetch(`${baseUrl}/api/auth:signIn`, {
      method: 'POST',
      body: JSON.stringify({ account: PROCESS_ROOT.email, password: PROCESS_ROOT.password }),
      headers: { 'content-type': 'application/json' },
    });
    const text = await response.text();
    if (response.status !== 200) {
      token = undefined;
      throw new Error(`sign-in failed: ${response.status} ${text}`);
    }
    return (JSON.parse(text) as { data: { token: string } }).data.token;
  };
  const authHeaders = async (): Promise<Record<string, string>> => ({ authorization: `Bearer ${await (token ??= signIn())}` });
  const proc: CorralProcess = {
    child,
    port,
    baseUrl,
    stdout: () => out,
    stderr: () => err,
    exited,
    hasExited: () => done,
    authHeaders,
    request: async (method, path, body) => {
      let response: Response;
      let text: string;
      try {
        const auth = path.startsWith('/api/') && !path.startsWith('/api/auth:signIn') ? await authHeaders() : {};
        response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        text = await response.text();
      } catch (error) {
        // Say whether the server died, and what it printed, instead of a bare "fetch failed".
        await sleep(100);
        const cause = (error as { cause?: { message?: string } }).cause?.message ?? '';
        const state = done ? `the process has exited (${JSON.stringify(await exited)})` : 'the process is still running';
        throw new Error(`${method} ${path} failed: ${(error as Error).message} ${cause}; ${state}; stderr:\n${err.slice(-2000)}`, { cause: error });
      }
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: response.status, body: parsed, text };
    },
    stop: async (timeoutMs = 15_000) => {
      if (!done) child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!done) child.kill('SIGKILL');
      }, timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
    kill: async () => {
      if (!done) child.kill('SIGKILL');
      return exited;
    },
  };
  running.add(proc);
  void exited.then(() => running.delete(proc));
  return proc;
}

/**
 * Spawns Corral and waits until `GET /healthz` answers 200 (polled, bounded by `timeoutMs`, a
 * hang guard only: 30 s by default, since a loaded machine stretches a start well past 10 s).
 * If the process exits or the time runs out first, it is killed and the error carries its stderr.
 */
export async function startCorral(options: SpawnOptions & { timeoutMs?: number } = {}): Promise<CorralProcess> {
  const proc = await spawnCorral(options);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    if (proc.hasExited()) {
      const exit = await proc.exited;
      throw new Error(`corral exited (code ${exit.code}, signal ${exit.signal}) before it was healthy:\n${proc.stderr()}${proc.stdout()}`);
    }
    try {
      const response = await fetch(`${proc.baseUrl}/healthz`, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.status === 200) return proc;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await proc.kill();
      throw new Error(`corral was not healthy within ${options.timeoutMs ?? 30_000} ms:\n${proc.stderr()}${proc.stdout()}`);
    }
    await sleep(50);
  }
}

/** Kills (SIGKILL) every child still running; for afterEach/afterAll, so failures leave nothing behind. */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((proc) => proc.kill()));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` every `intervalMs` until it returns true or `timeoutMs` passes; resolves with
 * the elapsed milliseconds, or throws with `what` on timeout.
 */
export async function waitFor(probe: () => Promise<boolean>, what: string, timeoutMs: number, intervalMs = 50): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - start;
    const elapsed = performance.now() - start;
    if (elapsed > timeoutMs) throw new Error(`${what}: not seen within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}

/** Non-empty lines of a text. */
export function lines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** An answer of `freshRequest`, with the pid of the worker that gave it (`x-corral-worker`). */
export interface FreshAnswer {
  status: number;
  worker: string;
  body: any;
  text: string;
}

/**
 * One request on a new connection (no keep-alive), so the primary hands it to the next worker.
 * `headers` replaces the root sign-in that paths under /api/ get otherwise.
 */
export async function freshRequest(proc: CorralProcess, method: string, path: string, body?: unknown, headers?: Record<string, string>, timeoutMs = 10_000): Promise<FreshAnswer> {
  const auth = headers ?? (path.startsWith('/api/') && !path.startsWith('/api/auth:signIn') ? await proc.authHeaders() : {});
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${proc.baseUrl}${path}`,
      { method, agent: false, headers: { ...auth, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, worker: String(res.headers['x-corral-worker'] ?? ''), body: parsed, text });
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.end(payload);
  });
}

/** Waits until `workers` workers have answered `/healthz` on new connections, and returns their pids. */
export async function workerPids(proc: CorralProcess, workers: number, timeoutMs: number): Promise<string[]> {
  const seen = new Set<string>();
  await waitFor(
    async () => {
      const reply = await freshRequest(proc, 'GET', '/healthz').catch(() => undefined);
      if (reply?.status === 200 && reply.worker !== '') seen.add(reply.worker);
      return seen.size === workers;
    },
    `${workers} workers answering`,
    timeoutMs,
    20,
  );
  return [...seen];
}
