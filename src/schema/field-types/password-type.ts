import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { fail, ok, type FieldType } from '../field-type.js';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const KEY_LENGTH = 32;
export const PASSWORD_MAX_LENGTH = 1024;

/** Stored as `scrypt$<salt b64>$<hash b64>`; hashing happens in the write path (it is async). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, KEY_LENGTH);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(expected, actual);
}

export const passwordType: FieldType = {
  name: 'password',
  column: () => ({ kind: 'varchar', length: 255 }),
  parse: (value) =>
    typeof value === 'string' && value.length <= PASSWORD_MAX_LENGTH
      ? ok(value)
      : fail(`must be a string of at most ${PASSWORD_MAX_LENGTH} characters`),
  toDb: (value) => value,
  fromDb: () => null,
  capability: 'none',
  hidden: true,
  options: ['minLength', 'maxLength', 'pattern'],
  indexable: false,
};
