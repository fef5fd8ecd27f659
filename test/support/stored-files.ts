import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file under a local storage directory, as paths relative to it (`.tmp/…` for temp files), sorted. */
export function storedFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out.sort();
}
