/**
 * Every setting Corral reads from the environment, in the order the README's configuration
 * table lists them: the one source of that table (a test compares them) and of `corral help`.
 * `default` and `meaning` are the table's markdown; `help` is the terminal's one line.
 */
import { IMPORT_SETTINGS } from './import-settings.js';

export interface SettingInfo {
  readonly env: string;
  /** The command-line flag that sets it too (flags beat the environment). */
  readonly flag?: string;
  readonly default: string;
  readonly meaning: string;
  readonly help: string;
}

export const SETTINGS = [
  {
    env: 'PORT', flag: '--port',
    default: "`13000`",
    meaning: "Listen port, 0–65535 (0 picks a free port).",
    help: "listen port, 0-65535 (default 13000)",
  },
  {
    env: 'HOST', flag: '--host',
    default: "`127.0.0.1`",
    meaning: "Listen address. `0.0.0.0` listens on every interface.",
    help: "listen address (default 127.0.0.1)",
  },
  {
    env: 'DATABASE_URL', flag: '--database',
    default: "`sqlite:./storage/corral.sqlite`",
    meaning: "`sqlite:<path>`, `sqlite::memory:`, `postgres://…`, `postgresql://…`, `mysql://…`, `mariadb://…`. The SQLite directory is created when missing.",
    help: "sqlite:<path> | sqlite::memory: | postgres://... | mysql://... | mariadb://... (default sqlite:./storage/corral.sqlite)",
  },
  {
    env: 'CORRAL_SCHEMA', flag: '--schema',
    default: "none",
    meaning: "Schema file applied at start (creates what is missing, never drops).",
    help: "schema file applied at start (optional)",
  },
  {
    env: 'CORRAL_INTROSPECT', flag: '--introspect',
    default: "`off`",
    meaning: "`on` (or the bare flag) serves the database's existing tables and views as collections, read from its catalogue at start and by `POST /api/collections:sync`; Corral never changes their schema. See [docs/existing-databases.md](docs/existing-databases.md).",
    help: "on|off: serve the database's existing tables (bare --introspect: on)",
  },
  {
    env: 'CORRAL_INTROSPECT_INCLUDE', flag: '--include',
    default: "all",
    meaning: "Tables and views introspection offers (comma list of patterns, `*` any run, `?` one character, case-insensitive).",
    help: "tables to introspect, comma list of patterns with * and ? (default all)",
  },
  {
    env: 'CORRAL_INTROSPECT_EXCLUDE', flag: '--exclude',
    default: "none",
    meaning: "Tables and views introspection leaves out (patterns as above; beats `CORRAL_INTROSPECT_INCLUDE`).",
    help: "tables not to introspect, comma list of patterns (default none)",
  },
  {
    env: 'CORRAL_INTROSPECT_SCHEMA',
    default: "the URL's `?schema=`",
    meaning: "PostgreSQL: the schema whose tables introspection reads (Corral's own tables stay in the URL's schema).",
    help: "PostgreSQL: the schema introspection reads (default: the URL's schema)",
  },
  {
    env: 'LOG_LEVEL',
    default: "`info`",
    meaning: "`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. JSON lines on stdout.",
    help: "fatal|error|warn|info|debug|trace|silent (default info)",
  },
  {
    env: 'CORRAL_BODY_LIMIT',
    default: "`1mb`",
    meaning: "Largest request body: bytes, or with a `kb`/`mb` unit (1 kb = 1024 bytes); 1kb to 1024mb. Larger is 413.",
    help: "largest request body: bytes, or with kb/mb (1kb-1024mb, default 1mb)",
  },
  {
    env: 'CORRAL_BODY_TIMEOUT_MS',
    default: "`10000`",
    meaning: "How long a client may take to send a whole request, head and body (100–3600000); a request that trickles in longer is answered 408 and its connection closed.",
    help: "time to send a whole request, 100-3600000 (default 10000; slower is 408)",
  },
  {
    env: 'CORRAL_API_PREFIX',
    default: "`/api`",
    meaning: "Path prefix of the API, e.g. `/v1/data`.",
    help: "API path prefix (default /api)",
  },
  {
    env: 'CORRAL_DB_POOL_SIZE',
    default: "`10`",
    meaning: "PostgreSQL/MySQL connections per node, 1–100.",
    help: "PostgreSQL/MySQL connections per node, 1-100 (default 10)",
  },
  {
    env: 'CORRAL_SHUTDOWN_TIMEOUT_MS',
    default: "`10000`",
    meaning: "How long shutdown waits for in-flight requests before exiting with code 1 (1–600000).",
    help: "graceful shutdown limit before exiting 1 (default 10000)",
  },
  {
    env: 'CORRAL_SCHEMA_POLL_MS',
    default: "`500`",
    meaning: "How often a node checks whether another node changed the schema (50–60000).",
    help: "how often to look for schema changes, 50-60000 (default 500)",
  },
  {
    env: 'CORRAL_WORKERS',
    default: "number of cores",
    meaning: "Worker processes sharing the port (1–256; `1` serves from one process; `sqlite::memory:` forces 1).",
    help: "worker processes sharing the port, 1-256 (default: the number of cores)",
  },
  {
    env: 'CORRAL_DB_CONNECT_TIMEOUT_MS',
    default: "`5000`",
    meaning: "Connecting to PostgreSQL/MySQL gives up after this long (503 `DATABASE_UNAVAILABLE`).",
    help: "PostgreSQL/MySQL connect limit, 100-600000 (default 5000)",
  },
  {
    env: 'CORRAL_DB_STATEMENT_TIMEOUT_MS',
    default: "`30000`",
    meaning: "One statement on PostgreSQL/MySQL, or one read on a SQLite reader thread, gives up after this long (503 `DATABASE_UNAVAILABLE`).",
    help: "statement limit (PostgreSQL/MySQL, SQLite reader threads), 100-86400000 (default 30000)",
  },
  {
    env: 'CORRAL_SQLITE_READERS',
    default: "`2`",
    meaning: "SQLite on a file: threads that run the reads that may be heavy (filters, filtered counts, deep pages, `:query`), each on a read-only connection of its own, so they never hold up other requests; `0` runs every read on the main connection. See [docs/performance.md](docs/performance.md#sqlite-reader-threads).",
    help: "SQLite reader threads for heavy reads, 0-64 (default 2; 0: off)",
  },
  {
    env: 'CORRAL_EXACT_COUNT_LIMIT',
    default: "`100000`",
    meaning: "Lists count exactly up to this many matching rows and estimate above it (`meta.countEstimated: true`), unless `count=` says otherwise (0–1000000000). See [docs/querying.md](docs/querying.md#counts).",
    help: "lists count exactly up to this many rows, estimate above (default 100000)",
  },
  {
    env: 'CORRAL_MAX_OFFSET',
    default: "`100000`",
    meaning: "Deepest offset page, in rows (`(page - 1) × pageSize`, 0–1000000000); a deeper one is 400 `PAGE_TOO_DEEP`, pointing to `cursor` paging.",
    help: "deepest offset page in rows; deeper is 400 PAGE_TOO_DEEP (default 100000)",
  },
  ...IMPORT_SETTINGS,
  {
    env: 'CORRAL_CORS_ORIGINS',
    default: "none",
    meaning: "Browser origins allowed to call the API (comma list, or `*`); any other `Origin` is 403.",
    help: "browser origins allowed, comma list or * (default none)",
  },
  {
    env: 'CORRAL_STUDIO',
    default: "`on`",
    meaning: "`off` turns the admin web app at `/` and `/studio/…` off (API only). Off by default, and `on` refused, when `CORRAL_API_PREFIX` is `/studio` or below it. See [docs/studio.md](docs/studio.md).",
    help: "on|off: the admin web app at / (default on)",
  },
  {
    env: 'CORRAL_ALLOWED_HOSTS',
    default: "none",
    meaning: "Host names accepted on a loopback listener besides `localhost`, `127.0.0.1`, `[::1]`.",
    help: "extra Host names on a loopback listener, comma list (default none)",
  },
  {
    env: 'CORRAL_TRUSTED_PROXIES',
    default: "none",
    meaning: "Reverse proxies (comma list of IPs or CIDRs) whose `X-Forwarded-For` names the client (the sign-in limiter counts per client address); from any other peer the header is ignored.",
    help: "proxies whose X-Forwarded-For names the client, IPs or CIDRs (default none)",
  },
  {
    env: 'CORRAL_CURSOR_SECRET',
    default: "stored in the database",
    meaning: "Key list cursors are encrypted and authenticated with.",
    help: "key of the encrypted list cursors (default: generated, kept in the database)",
  },
  {
    env: 'CORRAL_AUTH',
    default: "`on`",
    meaning: "`off` opens every route for local development; refused unless `HOST` is loopback.",
    help: "on (default) or off; off is refused unless HOST is loopback",
  },
  {
    env: 'CORRAL_ROOT_EMAIL',
    default: "`root@localhost`",
    meaning: "Email of the root user created at first start.",
    help: "root user's email at first start (default root@localhost)",
  },
  {
    env: 'CORRAL_ROOT_PASSWORD',
    default: "generated",
    meaning: "Root password at first start; when unset one is generated and printed once.",
    help: "root user's password at first start (default: generated, printed once)",
  },
  {
    env: 'CORRAL_AUTH_SECRET',
    default: "generated",
    meaning: "Token signing secret (32+ characters); when unset one is generated once and kept in the database, shared by every node.",
    help: "token signing secret, 32+ characters (default: generated, kept in the database)",
  },
  {
    env: 'CORRAL_TOKEN_TTL_SECONDS',
    default: "`604800`",
    meaning: "Lifetime of a sign-in token (60 s to 366 days).",
    help: "sign-in token lifetime, 60-31622400 (default 604800)",
  },
  {
    env: 'CORRAL_CHANGES_RETENTION',
    default: "`7d`",
    meaning: "How long change-feed events are kept (`ms`/`s`/`m`/`h`/`d`); resuming from an older id is 410 `CHANGES_EXPIRED`.",
    help: "how long change events are kept, e.g. 7d or 12h (default 7d)",
  },
  {
    env: 'CORRAL_CHANGES_POLL_MS',
    default: "`250`",
    meaning: "How often a node reads the change outbox when no commit or NOTIFY woke it (10–600000).",
    help: "how often the change outbox is read, 10-600000 (default 250)",
  },
  {
    env: 'CORRAL_WEBHOOK_RETRY_BASE_MS',
    default: "`10000`",
    meaning: "First retry delay of a webhook delivery, doubled each attempt.",
    help: "first retry delay of a webhook delivery, doubled each time (default 10000)",
  },
  {
    env: 'CORRAL_WEBHOOK_ALLOW_PRIVATE',
    default: "`false`",
    meaning: "`true` lets webhooks target loopback, private and link-local addresses (never documentation or reserved ranges).",
    help: "true lets webhooks target loopback and private addresses (default false)",
  },
  {
    env: 'CORRAL_UPLOAD_MAX_BYTES',
    default: "`104857600`",
    meaning: "Largest uploaded file in bytes (1–2^53); a larger one is 413 `FILE_TOO_LARGE`.",
    help: "largest uploaded file in bytes (default 104857600 = 100 MiB)",
  },
  {
    env: 'CORRAL_UPLOAD_ORPHAN_AGE_MS',
    default: "`3600000`",
    meaning: "How old a stored file no attachment names, or an unfinished upload's temp file, must be before the orphan sweep (at start and hourly) removes it (0–2592000000).",
    help: "age before unreferenced uploads are removed, ms (default 3600000)",
  },
  {
    env: 'CORRAL_METRICS',
    default: "`off`",
    meaning: "Prometheus metrics at `GET /metrics`: `off`, `on` (on the main port, behind `CORRAL_METRICS_TOKEN`) or a separate listen address `host:port` (no token, e.g. `127.0.0.1:9464`). See [docs/operations.md](docs/operations.md).",
    help: "off (default) | on (main port, needs CORRAL_METRICS_TOKEN) | host:port",
  },
  {
    env: 'CORRAL_METRICS_TOKEN',
    default: "none",
    meaning: "Bearer token `GET /metrics` asks for with `CORRAL_METRICS=on` (16+ characters; required then).",
    help: "bearer token of /metrics on the main port, 16+ characters",
  },
  {
    env: 'CORRAL_COMPRESSION',
    default: "`on`",
    meaning: "`off` turns off gzip and brotli compression of JSON answers larger than 1 KiB (never event streams).",
    help: "on|off: compress JSON answers over 1 KiB (default on)",
  },
  {
    env: 'CORRAL_STORAGE',
    default: "`local`",
    meaning: "Where attachment bytes are stored: `local` (a directory, `CORRAL_STORAGE_DIR`) or `s3` (a bucket of any S3-compatible service, `CORRAL_S3_…`). See [docs/files.md](docs/files.md).",
    help: "local|s3: where attachment bytes are stored (default local)",
  },
  {
    env: 'CORRAL_STORAGE_DIR',
    default: "`./storage/uploads`",
    meaning: "The `local` storage's directory (created when missing); with `s3`, uploads are staged in its `.tmp` folder before they are sent.",
    help: "directory of the local storage; s3 stages uploads in its .tmp (default ./storage/uploads)",
  },
  {
    env: 'CORRAL_S3_BUCKET',
    default: "none",
    meaning: "The bucket of the `s3` storage (required with `CORRAL_STORAGE=s3`).",
    help: "bucket of the s3 storage (required with CORRAL_STORAGE=s3)",
  },
  {
    env: 'CORRAL_S3_REGION',
    default: "the SDK's (`AWS_REGION`)",
    meaning: "Region of the bucket; unset, the AWS SDK's own lookup (`AWS_REGION`, `~/.aws/config`).",
    help: "region of the s3 bucket (default: the AWS SDK's, AWS_REGION)",
  },
  {
    env: 'CORRAL_S3_ENDPOINT',
    default: "AWS",
    meaning: "`http(s)://host[:port]` of an S3-compatible service (MinIO, Ceph, R2, …); unset, AWS S3.",
    help: "http(s) URL of an S3-compatible service (default: AWS)",
  },
  {
    env: 'CORRAL_S3_FORCE_PATH_STYLE',
    default: "`false`",
    meaning: "`true` addresses the bucket in the path (`host/bucket/key`) instead of the host name, as MinIO and most self-hosted services need.",
    help: "true|false: bucket in the path, not the host name (default false)",
  },
  {
    env: 'CORRAL_S3_ACCESS_KEY_ID',
    default: "the SDK's",
    meaning: "Access key of the `s3` storage, with `CORRAL_S3_SECRET_ACCESS_KEY` (both or neither); unset, the AWS SDK's default credential chain (`AWS_ACCESS_KEY_ID`, profiles, instance roles).",
    help: "s3 access key id, with CORRAL_S3_SECRET_ACCESS_KEY (default: the AWS SDK's chain)",
  },
  {
    env: 'CORRAL_S3_SECRET_ACCESS_KEY',
    default: "the SDK's",
    meaning: "Secret of `CORRAL_S3_ACCESS_KEY_ID`.",
    help: "s3 secret access key, with CORRAL_S3_ACCESS_KEY_ID",
  },
  {
    env: 'CORRAL_S3_PREFIX',
    default: "none",
    meaning: "Key prefix of the stored objects in the bucket (`corral/uploads`), so one bucket can hold other things too.",
    help: "key prefix of the stored objects in the s3 bucket (default none)",
  },
  { env: 'CORRAL_S3_TIMEOUT_MS', default: "`30000`",
    meaning: "How long one call to the bucket may wait without progress (connecting, or no byte sent or received) before it fails: an upload then answers 503 `STORAGE_UNAVAILABLE`.",
    help: "ms one s3 call may wait without progress, 100-600000 (default 30000)" },
] as const satisfies readonly SettingInfo[];

/** An environment variable Corral reads. */
export type Setting = (typeof SETTINGS)[number]['env'];

/** The README's configuration table, as markdown rows (header included). */
export function settingsTable(): string {
  const rows = SETTINGS.map((setting: SettingInfo) => `| \`${setting.env}\` |${setting.flag === undefined ? '' : ` \`${setting.flag}\``} | ${setting.default} | ${setting.meaning} |`);
  return ['| env var | flag | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

/** The settings part of `corral help`: flags first, then the settings only the environment sets. */
export function settingsHelp(): string {
  const line = (left: string, help: string): string => `  ${left.padEnd(35)} ${help}`;
  const flagged = SETTINGS.filter((setting: SettingInfo) => setting.flag !== undefined);
  const envOnly = SETTINGS.filter((setting: SettingInfo) => setting.flag === undefined);
  return [
    'Options (each also as --option=value; options beat environment variables):',
    ...flagged.map((setting: SettingInfo) => line(`${(setting.flag ?? '').padEnd(10)} ${setting.env}`, setting.help)),
    '',
    'Environment only (an empty variable counts as unset):',
    ...envOnly.map((setting: SettingInfo) => line(setting.env, setting.help)),
    '',
  ].join('\n');
}
