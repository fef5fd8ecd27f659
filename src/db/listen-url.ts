import type { DatabaseConfig } from '../config/config.js';

/**
 * The URL a LISTEN connection opens, when the database can push notices (PostgreSQL); else
 * undefined, and the change feed and propagation poll instead.
 */
export function listenUrlOf(database: DatabaseConfig): string | undefined {
  return database.dialect === 'postgres' ? database.url : undefined;
}
