import { isRecord } from '../is-record.js';
import { invalid } from './normalize-field.js';
import type { RelationDef } from './types.js';

/** The system collection attachment fields point at (src/files/attachment-definition.ts). */
export const ATTACHMENTS = 'attachments';
/** NocoBase's `interface` of an attachment field: a belongsToMany to attachments drawn as an upload widget. */
export const ATTACHMENT_INTERFACE = 'attachment';
/** Most entries of an `accept` list. */
export const MAX_ACCEPT_TYPES = 50;
/** A MIME type or a `type/*` family: `image/png`, `image/*`, `application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`. */
const MIME_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})$/;

/** Options only an attachment field takes. */
export const ATTACHMENT_OPTIONS = ['multiple', 'accept'] as const;

/**
 * Whether a field input asks for an attachment field: Corral's `{type: 'attachment'}`, or
 * NocoBase's own shape `{type: 'belongsToMany', target: 'attachments', interface: 'attachment'}`.
 */
export function isAttachmentInput(input: unknown): boolean {
  if (!isRecord(input)) return false;
  if (input.type === ATTACHMENT_INTERFACE) return true;
  return input.type === 'belongsToMany' && input.target === ATTACHMENTS && input.interface === ATTACHMENT_INTERFACE;
}

/** Whether a relation is an attachment field (its values are attachments rows). */
export function isAttachmentRelation(def: RelationDef): boolean {
  return def.target === ATTACHMENTS && def.type === 'belongsToMany' && def.interface === ATTACHMENT_INTERFACE;
}

/**
 * An attachment field as the belongsToMany it is stored as (docs/files.md): to `attachments`,
 * through a junction collection of its own (`<source>_<field>`, so two attachment fields of one
 * collection never share links), deleting links with either end. `multiple` (default true) and
 * `accept` (MIME types or `type/*`, checked against the content's magic bytes) are kept on the
 * relation as `attachment`.
 */
export function attachmentRelationInput(input: Record<string, unknown>, sourceName: string): { relation: Record<string, unknown>; options: NonNullable<RelationDef['attachment']> } {
  const { multiple, accept, ...rest } = input;
  const name = typeof input.name === 'string' ? input.name : '';
  if (multiple !== undefined && multiple !== null && typeof multiple !== 'boolean') throw invalid(`${name}: multiple must be true or false`, name);
  const options: NonNullable<RelationDef['attachment']> = { multiple: multiple !== false };
  if (accept !== undefined && accept !== null) {
    const list = typeof accept === 'string' ? accept.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '') : accept;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_ACCEPT_TYPES || !list.every((entry) => typeof entry === 'string' && MIME_PATTERN.test(entry.toLowerCase()))) {
      throw invalid(`${name}: accept must be a list of 1 to ${MAX_ACCEPT_TYPES} MIME types such as image/png or image/*`, name);
    }
    options.accept = list.map((entry) => (entry as string).toLowerCase());
  }
  if (rest.target !== undefined && rest.target !== ATTACHMENTS) throw invalid(`${name}: an attachment field's target is ${ATTACHMENTS}`, name);
  return {
    relation: {
      ...rest,
      type: 'belongsToMany',
      target: ATTACHMENTS,
      interface: ATTACHMENT_INTERFACE,
      through: rest.through ?? `${sourceName}_${name}`,
      onDelete: rest.onDelete ?? 'CASCADE',
    },
    options,
  };
}

/** Whether `type` is among `accept` (exact types, or `family/*`); no list accepts every type. */
export function acceptsType(accept: readonly string[] | undefined, type: string): boolean {
  if (accept === undefined) return true;
  const family = type.split('/')[0];
  return accept.some((entry) => entry === type || entry === '*/*' || (entry.endsWith('/*') && entry.slice(0, -2) === family));
}
