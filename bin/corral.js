#!/usr/bin/env node
// Thin launcher: the compiled entry is bundled into one file at build time (`npm install`
// builds it through `prepare`), which loads several times faster than the module tree.
import { main } from '../dist/corral.mjs';

main(process.argv.slice(2), process.env).catch((error) => {
  process.stderr.write(`corral: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
