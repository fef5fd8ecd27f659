import type { Db } from '../../db/database.js';
import { FAILURES_TABLE } from './auth-tables.js';

/**
 * The statements of the sign-in limiter (auth/rate-limiter.ts) on corral_sign_in_failures:
 * one row per failed sign-in, read by account or by address through the table's two indexes.
 */
export class SignInFailures {
  constructor(private readonly db: Db) {}

  /** Forgets failures at or before `since` (a scan of one window of rows). */
  async prune(since: number): Promise<void> {
    await this.db.deleteFrom(FAILURES_TABLE).where('failed_at', '<=', since).execute();
  }

  async record(account: string, address: string, at: number, id: string): Promise<void> {
    await this.db.insertInto(FAILURES_TABLE).values({ account, address, failed_at: at, id }).execute();
  }

  /** Takes one recorded attempt back (a refused one). */
  async takeBack(account: string, at: number, id: string): Promise<void> {
    await this.db.deleteFrom(FAILURES_TABLE).where('account', '=', account).where('failed_at', '=', at).where('id', '=', id).execute();
  }

  /** Forgets every failure of one account (its password was right). */
  async clear(account: string): Promise<void> {
    await this.db.deleteFrom(FAILURES_TABLE).where('account', '=', account).execute();
  }

  /** When the other failures of one key after `since` happened, newest first (at most `limit`). */
  async recent(column: 'account' | 'address', key: string, since: number, own: string, limit: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom(FAILURES_TABLE)
      .select('failed_at')
      .where(column, '=', key)
      .where('failed_at', '>', since)
      .where('id', '<>', own)
      .orderBy('failed_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => Number(row.failed_at));
  }
}
