import { DEFAULT_CONFIG, type Config } from './config.js';

/** The settings of `:import` (docs/import-export.md#limits-and-large-files), in the order settings.ts lists them. */
export const IMPORT_SETTINGS = [
  {
    env: 'CORRAL_IMPORT_MAX_BYTES',
    default: "`100mb`",
    meaning: "Largest file a `:import` takes: bytes, or with a `kb`/`mb` unit (1kb–4096mb). Larger is 413 `IMPORT_TOO_LARGE`. See [docs/import-export.md](docs/import-export.md#import).",
    help: "largest file an import takes: bytes, or with kb/mb (default 100mb)",
  },
  {
    env: 'CORRAL_IMPORT_MAX_ROWS',
    default: "`1000000`",
    meaning: "Most data rows a `:import` takes (1–100000000). More is 413 `IMPORT_TOO_LARGE`.",
    help: "most data rows an import takes (default 1000000)",
  },
  {
    env: 'CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES',
    default: "`256mb`",
    meaning: "What the parts of an XLSX `:import` may inflate to in all: bytes, or with a `kb`/`mb` unit (1kb–4096mb). More is 413 `IMPORT_CONTENT_TOO_LARGE`, as is a part that inflates more than 200 times its compressed size. See [docs/import-export.md](docs/import-export.md#limits-and-large-files).",
    help: "what an XLSX import may inflate to in all: bytes, or with kb/mb (default 256mb)",
  },
] as const;

/** The bounds of an import (src/import/import-upload.ts ImportLimits) from the configuration, defaults filled in. */
export function importLimits(config: Config): { maxBytes: number; maxRows: number; maxUncompressedBytes: number } {
  return {
    maxBytes: config.importMaxBytes ?? DEFAULT_CONFIG.importMaxBytes,
    maxRows: config.importMaxRows ?? DEFAULT_CONFIG.importMaxRows,
    maxUncompressedBytes: config.importMaxUncompressedBytes ?? DEFAULT_CONFIG.importMaxUncompressedBytes,
  };
}
