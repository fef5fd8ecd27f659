import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * s3rver (an S3-compatible server from npm) in a child process of its own. Not in-process:
 * s3rver's ListObjectsV2 continuation tokens use DES, which OpenSSL 3 (Node 17+) only offers
 * with --openssl-legacy-provider, a flag the test process should not run under. The child ends
 * when its stdin closes, so a test process that dies takes it along.
 */
export interface S3rverProcess {
  endpoint: string;
  /** Where s3rver keeps the buckets (an object is `<directory>/<bucket>/<key dirs>/<name>._S3rver_object`). */
  directory: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

const SCRIPT = `
const S3rver = require('s3rver');
const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: process.argv[1] });
server.run().then(({ port }) => process.stdout.write(JSON.stringify({ port }) + '\\n'), (error) => { console.error(error); process.exit(1); });
process.stdin.on('end', () => server.close().finally(() => process.exit(0)));
process.stdin.resume();
`;

export async function startS3rver(): Promise<S3rverProcess> {
  const directory = await mkdtemp(join(tmpdir(), 'corral-s3rver-'));
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', '-e', SCRIPT, directory], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  child.removeAllListeners('exit');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.end();
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
