import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One built file of the studio, with the compressed copies `npm run build` wrote beside it. */
export interface StudioFile {
  type: string;
  body: Buffer;
  gzip?: Buffer;
  brotli?: Buffer;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

/** Where `npm run build` puts the studio (vite's outDir), from this module's place in src/, dist/ or the bundle. */
export function studioDirectory(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, 'studio-app'), join(here, '..', 'studio-app'), join(here, '..', '..', 'dist', 'studio-app')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}

/**
 * Reads every file of the built studio once, at start (a few hundred KB): answers then cost no
 * disk access. Keys are paths relative to the folder with `/` separators (`index.html`,
 * `assets/index-3f2a.js`); `.gz` and `.br` files become the compressed copies of their originals.
 */
export function loadStudioFiles(dir: string): Map<string, StudioFile> {
  const files = new Map<string, StudioFile>();
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        walk(path);
        continue;
      }
      const ext = extname(name);
      if (ext === '.gz' || ext === '.br') continue;
      const key = relative(dir, path).split(sep).join('/');
      const body = readFileSync(path);
      const file: StudioFile = { type: TYPES[ext] ?? 'application/octet-stream', body, etag: `"${body.length.toString(36)}-${hash(body)}"` };
      if (existsSync(`${path}.gz`)) file.gzip = readFileSync(`${path}.gz`);
      if (existsSync(`${path}.br`)) file.brotli = readFileSync(`${path}.br`);
      files.set(key, file);
    }
  };
  walk(dir);
  return files;
}

/** A short content hash for the ETag (FNV-1a; not for security). */
function hash(body: Buffer): string {
  let h = 0x811c9dc5;
  for (const byte of body) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h.toString(36);
}
