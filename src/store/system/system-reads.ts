import type { Database } from '../../db/database.js';
import type { Collection } from '../../schema/collection.js';
import type { ShapeCache } from '../../sql/query-cache.js';
import type { SqlPass } from '../../sql/sql-pass.js';

type Row = Record<string, unknown>;

/**
 * The auth layer's reads of its system collections (every role, every scope row, one user by
 * id), run through the compiled-shape cache: each node reads them about once a second per
 * user, and building and compiling the query each time cost more than running it. A schema
 * change makes new collections, so their SQL is compiled afresh.
 */
export class SystemReads {
  constructor(
    private readonly database: Database,
    private readonly shapes: ShapeCache,
  ) {}

  /** Every row of `collection`, the named columns, decoded. */
  async all(collection: Collection, columns: readonly string[]): Promise<Row[]> {
    const { db, dialect } = this.database;
    const rows = await this.shapes.run<Row>(db, collection, dialect, (pass: SqlPass) => {
      pass.key += `auth.all:${columns.join(',')}`;
      return pass.emit ? db.selectFrom(collection.table).select([...columns]) : undefined;
    });
    const fields = columns.map((name) => collection.fields.get(name)!);
    return rows.map((row) => collection.decode(row, fields));
  }

  /** The raw row of `id` (not decoded: the caller decodes what it shows), the named columns. */
  async byId(collection: Collection, columns: readonly string[], id: string): Promise<Row | undefined> {
    const { db, dialect } = this.database;
    const [row] = await this.shapes.run<Row>(
      db,
      collection,
      dialect,
      (pass: SqlPass) => {
        pass.key += `auth.byId:${columns.join(',')}`;
        const value = pass.value(id);
        return pass.emit ? db.selectFrom(collection.table).select([...columns]).where(collection.key.name, '=', value) : undefined;
      },
      true,
    );
    return row;
  }

  /** The id and stored password hash of the user whose email or username is `account` (sign-in: raw, the hash is never decoded). */
  async signInRow(users: Collection, account: string): Promise<{ id: unknown; password: unknown } | undefined> {
    const { db, dialect } = this.database;
    const [row] = await this.shapes.run<Row>(
      db,
      users,
      dialect,
      (pass: SqlPass) => {
        pass.key += 'auth.signIn';
        const email = pass.value(account);
        const username = pass.value(account);
        return pass.emit ? db.selectFrom(users.table).select(['id', 'password']).where((eb) => eb.or([eb('email', '=', email), eb('username', '=', username)])) : undefined;
      },
      true,
    );
    return row === undefined ? undefined : { id: row.id, password: row.password };
  }
}
