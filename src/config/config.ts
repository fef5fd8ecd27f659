/** Typed configuration. `load-config.ts` builds it from env and flags. */

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export type DatabaseConfig =
  | {
      dialect: 'sqlite';
      /** a file path, or ':memory:' */
      file: string;
      /** Reader threads for reads that may be heavy (CORRAL_SQLITE_READERS; default 2, 0: none). */
      readers?: number;
      /** Rows a table spans before its heavy reads use the threads (db/table-spans.ts; tests lower it). */
      readerMinRows?: number;
      /** `sqlite:<path>?mode=ro`: the file is opened read-only (docs/existing-databases.md#read-only-roles). */
      readOnly?: true;
    }
  | { dialect: 'postgres'; url: string; poolSize: number }
  | { dialect: 'mysql'; url: string; poolSize: number };

export interface Config {
  port: number;
  host: string;
  database: DatabaseConfig;
  /** Path of a schema file applied idempotently at start. */
  schemaFile?: string;
  logLevel: LogLevel;
  /** Largest accepted request body, in bytes. */
  bodyLimit: number;
  /**
   * How long a client may take to send a whole request, head and body (CORRAL_BODY_TIMEOUT_MS,
   * default DEFAULT_CONFIG.bodyTimeoutMs): a request that trickles in is answered 408 and its
   * connection closed, so slow senders cannot hold connections open.
   */
  bodyTimeoutMs?: number;
  /** Path prefix of the API, '/api' by default. */
  apiPrefix: string;
  /** How long a SIGTERM waits for in-flight requests before closing anyway. */
  shutdownTimeoutMs: number;
  /** How often a node checks whether another node changed the schema. */
  schemaPollMs: number;
  /** How long connecting to PostgreSQL or MySQL may take before it counts as unreachable. */
  dbConnectTimeoutMs: number;
  /** How long one statement may run on PostgreSQL or MySQL, or one read on a SQLite reader thread (503 after that). */
  dbStatementTimeoutMs: number;
  /** Browser origins allowed to call the API (`https://app.example.com`); none by default. */
  corsOrigins: string[];
  /** Host names accepted besides localhost, 127.0.0.1 and [::1] on a loopback listener. */
  allowedHosts: string[];
  /**
   * Proxies (IPs or CIDRs) whose X-Forwarded-For is believed for the client address (the
   * sign-in limiter's, the logs'): the right-most address not in this list. None by default.
   */
  trustedProxies: string[];
  /** Worker processes sharing the port (1: serve from this process); an in-memory SQLite database forces 1. */
  workers: number;
  /** Lists count exactly up to this many rows, and estimate above (CORRAL_EXACT_COUNT_LIMIT, default DEFAULT_CONFIG.exactCountLimit). */
  exactCountLimit?: number;
  /** The deepest offset page, in rows skipped (CORRAL_MAX_OFFSET, default DEFAULT_CONFIG.maxOffset); deeper is 400 PAGE_TOO_DEEP. */
  maxOffset?: number;
  /** The largest file a `:import` takes, in bytes (CORRAL_IMPORT_MAX_BYTES, default DEFAULT_CONFIG.importMaxBytes). */
  importMaxBytes?: number;
  /** The most data rows a `:import` takes (CORRAL_IMPORT_MAX_ROWS, default DEFAULT_CONFIG.importMaxRows). */
  importMaxRows?: number;
  /** What the parts of an XLSX `:import` may inflate to in all (CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES, default DEFAULT_CONFIG.importMaxUncompressedBytes). */
  importMaxUncompressedBytes?: number;
  /** Signs list cursors; unset means a random secret stored once in the database. */
  cursorSecret?: string;
  /** How often the change feed reads the outbox when nothing woke it (CORRAL_CHANGES_POLL_MS, default 250). */
  changesPollMs?: number;
  /** How long events are kept (CORRAL_CHANGES_RETENTION, default 7d). */
  changesRetentionMs?: number;
  /** First retry delay of a webhook delivery, doubled each attempt (CORRAL_WEBHOOK_RETRY_BASE_MS, default 10000). */
  webhookRetryBaseMs?: number;
  /** Lets webhooks target loopback, private and link-local addresses (CORRAL_WEBHOOK_ALLOW_PRIVATE=true); never documentation or reserved ranges. */
  webhookAllowPrivate?: boolean;
  auth: AuthConfig;
  /**
   * Whether `/` and `/studio/…` serve the admin web app (CORRAL_STUDIO=on|off; on by default,
   * off by default when CORRAL_API_PREFIX is `/studio` or under it).
   */
  studio?: boolean;
  /** Prometheus metrics (CORRAL_METRICS): unset means off. */
  metrics?: MetricsConfig;
  /** Whether JSON answers over 1 KiB are compressed (CORRAL_COMPRESSION; on when unset). */
  compression?: boolean;
  /** Largest uploaded file, in bytes (CORRAL_UPLOAD_MAX_BYTES, default 100 MiB). */
  uploadMaxBytes?: number;
  /** Age before the orphan sweep removes unreferenced objects and temp files (CORRAL_UPLOAD_ORPHAN_AGE_MS, default 1 h). */
  uploadOrphanAgeMs?: number;
  /** Where attachment bytes are stored (CORRAL_STORAGE…); unset means `local` in DEFAULT_CONFIG.storageDir. */
  storage?: StorageConfig;
  /** CORRAL_INTROSPECT=on: the database's existing tables are served (docs/existing-databases.md); unset means off. */
  introspect?: IntrospectConfig;
}

/** Which tables introspection reads (CORRAL_INTROSPECT_INCLUDE / _EXCLUDE / _SCHEMA). */
export interface IntrospectConfig {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  /** PostgreSQL: the schema to read, when not the URL's. */
  readonly schema?: string;
}

/**
 * Where attachment bytes live (files/open-storage.ts). `dir` is the local directory: the objects'
 * for `local`, the staging area (`<dir>/.tmp`) of uploads on their way to the bucket for `s3`.
 */
export type StorageConfig =
  | { readonly kind: 'local'; readonly dir: string }
  | {
      readonly kind: 's3';
      readonly dir: string;
      readonly bucket: string;
      /** Unset: the AWS SDK's own lookup (AWS_REGION, ~/.aws/config). */
      readonly region?: string;
      /** An S3-compatible service's URL; unset: AWS. */
      readonly endpoint?: string;
      readonly forcePathStyle: boolean;
      /** Unset: the AWS SDK's default credential chain. */
      readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
      /** Key prefix without a trailing slash, '' for none. */
      readonly prefix: string;
      /** CORRAL_S3_TIMEOUT_MS: how long one call may wait without progress (unset: S3_TIMEOUT_MS_DEFAULT). */
      readonly timeoutMs?: number;
    };

/** Where `GET /metrics` is served: on the main port behind a bearer token, or on an address of its own. */
export type MetricsConfig = { readonly mode: 'token'; readonly token: string } | { readonly mode: 'address'; readonly host: string; readonly port: number };

/** Authentication settings (docs/auth.md). */
export interface AuthConfig {
  /** false only with CORRAL_AUTH=off, which load-config refuses on a non-loopback host. */
  enabled: boolean;
  /** Root credentials used when the users collection is created (first start). */
  rootEmail: string;
  rootPassword?: string;
  /** Token signing secret; when unset one is generated once and kept in the database. */
  secret?: string;
  /** Lifetime of a sign-in token. */
  tokenTtlSeconds: number;
}

export const DEFAULT_CONFIG = {
  port: 13000,
  host: '127.0.0.1',
  databaseUrl: 'sqlite:./storage/corral.sqlite',
  logLevel: 'info',
  bodyLimit: 1024 * 1024,
  bodyTimeoutMs: 10_000,
  apiPrefix: '/api',
  shutdownTimeoutMs: 10_000,
  schemaPollMs: 500,
  poolSize: 10,
  dbConnectTimeoutMs: 5000,
  dbStatementTimeoutMs: 30_000,
  sqliteReaders: 2,
  rootEmail: 'root@localhost',
  tokenTtlSeconds: 7 * 24 * 3600,
  exactCountLimit: 100_000,
  maxOffset: 100_000,
  storageDir: './storage/uploads',
  importMaxBytes: 100 * 1024 * 1024,
  importMaxRows: 1_000_000,
  importMaxUncompressedBytes: 256 * 1024 * 1024,
} as const;
