import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

// Corral Studio: Preact through Vite's own JSX transform (no plugin), built into dist/studio-app,
// which the server reads at start (src/studio/studio-files.ts). Assets get content hashes under
// /studio/assets/, served immutable; compress.mjs writes their .br and .gz copies.
export default defineConfig({
  root: here,
  base: '/studio/',
  logLevel: 'warn',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/studio-app', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
