import type { Kysely } from 'kysely';
import type { DynamicDb } from '../database.js';
import type { Catalogue } from './catalogue.js';
import type { CatalogueReadOptions } from './catalogue-reader.js';
export async function readMysqlCatalogue(_db: Kysely<DynamicDb>, _options: CatalogueReadOptions): Promise<Catalogue> {
  throw new Error('todo');
}
