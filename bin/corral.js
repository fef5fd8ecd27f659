#!/usr/bin/env node
// Thin launcher: the compiled entry lives in dist/ (built by `npm install` through `prepare`).
import { main } from '../dist/main.js';

main(process.argv.slice(2), process.env).catch((error) => {
  process.stderr.write(`corral: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
