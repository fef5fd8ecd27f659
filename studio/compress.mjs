// Writes a brotli and a gzip copy beside each text file of the built studio, so the server
// answers compressed without compressing anything per request (src/studio/studio-files.ts).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = new URL('../dist/studio-app/', import.meta.url).pathname;
const TEXT = new Set(['.html', '.js', '.css', '.svg', '.json']);

function walk(folder) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (TEXT.has(extname(name))) {
      const body = readFileSync(path);
      writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
    }
  }
}
walk(root);
