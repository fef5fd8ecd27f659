import { readFileSync } from 'node:fs';

/**
 * Corral's version, from the package.json above this module: src/ and dist/ files sit one or
 * two levels below it, the bundle (dist/corral.mjs) one level.
 */
function readVersion(): string {
  for (const up of ['../', '../../', '../../../']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(`${up}package.json`, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'corral' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}

export const CORRAL_VERSION = readVersion();
