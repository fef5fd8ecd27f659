import type { DatabaseConfig } from '../config/config.js';
import { postgresSchema } from './postgres-schema.js';

/** PostgreSQL: the schema a connection's unqualified names mean (`?schema=`, default `public`); the others have none. */
export function connectionSchemaOf(config: DatabaseConfig): string | undefined {
  return config.dialect === 'postgres' ? postgresSchema(config.url) : undefined;
}
