import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.js';
import type { Collection } from '../schema/collection.js';
import { OPEN_GRANTS } from '../store/scope.js';
import type { Store } from '../store/store.js';
import { selectWhere } from '../store/write-rows.js';
import { ATTACHMENTS } from './attachment-definition.js';
import { AttachmentFiles, DEFAULT_ORPHAN_AGE_MS, DEFAULT_UPLOAD_MAX_BYTES } from './attachment-files.js';
import { openStorage } from './open-storage.js';
import type { StagingStorage } from './staging-storage.js';

/** How often the orphan sweep runs after the one at start. */
export const ORPHAN_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

export interface StartedFiles {
  readonly files: AttachmentFiles;
  /** Resolves when the sweep started with the app is done (tests wait for it). */
  readonly firstSweep: Promise<void>;
  /** Stops the periodic sweep. */
  stop(): void;
  /** Closes the storage (an s3 client's connections), once no request uses it. */
  close(): void;
}

/**
 * Opens the storage, and wires what keeps it in step with the attachments rows: after a
 * commit that destroyed attachments rows, the bytes no row names any more are removed; the
 * orphan sweep runs at start (in the background) and every ORPHAN_SWEEP_INTERVAL_MS.
 */
export async function startAttachmentFiles(parts: {
  config: Config;
  store: Store;
  attachments: () => Collection | undefined;
  storage: StagingStorage | undefined;
  log: FastifyBaseLogger;
}): Promise<StartedFiles> {
  const { config, store, log } = parts;
  const storage = parts.storage ?? (await openStorage(config));
  const system = { request: { id: 'attachment-files' }, grants: OPEN_GRANTS, log };
  // Asked as the system: whether any row at all names the key, whoever may see it.
  const referenced = async (key: string): Promise<boolean> => {
    const attachments = parts.attachments();
    if (attachments === undefined) return true;
    const rows = await selectWhere(store.read(system), attachments, [attachments.key], { kind: 'compare', field: attachments.fields.get('path')!, op: 'eq', value: key });
    return rows.length > 0;
  };
  const files = new AttachmentFiles(storage, config.uploadMaxBytes ?? DEFAULT_UPLOAD_MAX_BYTES, config.apiPrefix, referenced);
  store.afterCommit((changes) => {
    const deleted = changes.get(ATTACHMENTS)?.deleted;
    if (deleted === undefined || deleted.length === 0) return undefined;
    const keys = new Set(deleted.map((change) => change.after?.path).filter((path): path is string => typeof path === 'string'));
    return (async () => {
      for (const key of keys) await files.release(key);
    })();
  });
  const age = config.uploadOrphanAgeMs ?? DEFAULT_ORPHAN_AGE_MS;
  const sweep = (): Promise<void> =>
    files
      .sweepOrphans(new Date(Date.now() - age))
      .then((removed) => {
        if (removed.temp + removed.objects > 0) log.info(removed, 'removed orphaned upload files');
      })
      .catch((error: unknown) => log.error({ err: error }, 'the orphan sweep of the attachment storage failed (it runs again within the hour)'));
  const firstSweep = sweep();
  const timer = setInterval(() => void sweep(), ORPHAN_SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    files,
    firstSweep,
    stop: () => clearInterval(timer),
    close: () => storage.close(),
  };
}
