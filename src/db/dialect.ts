/** The databases Corral runs on; each has an adapter in db/dialects/. */
export type Dialect = 'sqlite' | 'postgres' | 'mysql';
