import { ATTACHMENTS } from './attachment-field.js';

/**
 * What the server alone decides about a system collection's rows, in one place: the fields
 * only the server writes (a client's value is ignored on update and never reaches a create),
 * whether rows are made by an upload only, and whether a row is seen through the rows that own
 * it (docs/files.md "Who may read a file").
 */
export interface SystemRule {
  /** Fields only the server writes (the storage key, hash, size and type an upload found). */
  readonly serverManaged: ReadonlySet<string>;
  /** A create that is not the server's own (an upload) is refused: 400 UPLOAD_REQUIRED. */
  readonly uploadOnly: boolean;
  /** Its `view` scope is "a visible owning row shows it, or the caller uploaded it and it is linked nowhere" (store/owned-rows.ts). */
  readonly viewThroughOwners: boolean;
}

const RULES: ReadonlyMap<string, SystemRule> = new Map([
  [
    ATTACHMENTS,
    {
      serverManaged: new Set(['extname', 'mimetype', 'size', 'sha256', 'storage', 'path', 'url']),
      uploadOnly: true,
      viewThroughOwners: true,
    },
  ],
]);

/** The rule of a collection by its API name; undefined for every collection without one. */
export function systemRule(collection: string): SystemRule | undefined {
  return RULES.get(collection);
}
