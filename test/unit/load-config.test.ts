import { availableParallelism } from 'node:os';
import { describe, it, expect } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';

type Env = Record<string, string | undefined>;

const DEFAULTS: Config = {
  port: 13000,
  host: '127.0.0.1',
  database: { dialect: 'sqlite', file: './storage/corral.sqlite' },
  logLevel: 'info',
  bodyLimit: 1024 * 1024,
  apiPrefix: '/api',
  shutdownTimeoutMs: 10_000,
  schemaPollMs: 500,
  dbConnectTimeoutMs: 5000,
  dbStatementTimeoutMs: 30_000,
  corsOrigins: [],
  allowedHosts: [],
  trustedProxies: [],
  workers: availableParallelism(),
  auth: { enabled: true, rootEmail: 'root@localhost', tokenTtlSeconds: 604_800 },
  studio: true,
};

function errorOf(argv: string[], env: Env): ConfigError {
  try {
    loadConfig(argv, env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig defaults', () => {
  it('starts with the default config when given nothing', () => {
    expect(loadConfig([], {})).toEqual({ command: 'start', config: DEFAULTS });
  });

  it('treats empty env values as unset', () => {
    const env: Env = {
      PORT: '',
      HOST: '',
      DATABASE_URL: '',
      CORRAL_SCHEMA: '',
      LOG_LEVEL: '',
      CORRAL_BODY_LIMIT: '',
      CORRAL_API_PREFIX: '',
      CORRAL_DB_POOL_SIZE: '',
      CORRAL_SHUTDOWN_TIMEOUT_MS: '',
      CORRAL_BODY_TIMEOUT_MS: '',
      CORRAL_SCHEMA_POLL_MS: '',
      CORRAL_WORKERS: '',
    };
    expect(loadConfig([], env).config).toEqual(DEFAULTS);
  });

  it('leaves schemaFile out when no schema is given', () => {
    expect('schemaFile' in loadConfig([], {}).config).toBe(false);
  });
});

describe('loadConfig commands', () => {
  it.each<[string[], string]>([
    [[], 'start'],
    [['start'], 'start'],
    [['help'], 'help'],
    [['--help'], 'help'],
    [['-h'], 'help'],
    [['start', '--help'], 'help'],
    [['version'], 'version'],
    [['--version'], 'version'],
    [['--version', '--help'], 'help'],
    [['--port', '1', 'start'], 'start'],
  ])('argv %j runs %s', (argv, command) => {
    expect(loadConfig(argv, {}).command).toBe(command);
  });

  it('ignores a bad environment for help and version', () => {
    expect(loadConfig(['help'], { PORT: 'abc' })).toEqual({ command: 'help', config: DEFAULTS });
    expect(loadConfig(['version'], { DATABASE_URL: 'nope' }).command).toBe('version');
  });
});

describe('loadConfig env values', () => {
  it.each<[string, Env, Partial<Config>]>([
    ['PORT', { PORT: '3000' }, { port: 3000 }],
    ['PORT 0 (any free port)', { PORT: '0' }, { port: 0 }],
    ['PORT 65535', { PORT: '65535' }, { port: 65535 }],
    ['HOST', { HOST: '0.0.0.0' }, { host: '0.0.0.0' }],
    ['HOST IPv6', { HOST: '::' }, { host: '::' }],
    ['CORRAL_SCHEMA', { CORRAL_SCHEMA: './schema.json' }, { schemaFile: './schema.json' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'debug' }, { logLevel: 'debug' }],
    ['LOG_LEVEL in capitals', { LOG_LEVEL: 'WARN' }, { logLevel: 'warn' }],
    ['LOG_LEVEL silent', { LOG_LEVEL: 'silent' }, { logLevel: 'silent' }],
    ['CORRAL_BODY_LIMIT bytes', { CORRAL_BODY_LIMIT: '2048' }, { bodyLimit: 2048 }],
    ['CORRAL_BODY_LIMIT kb', { CORRAL_BODY_LIMIT: '512kb' }, { bodyLimit: 512 * 1024 }],
    ['CORRAL_BODY_LIMIT mb', { CORRAL_BODY_LIMIT: '5mb' }, { bodyLimit: 5 * 1024 * 1024 }],
    ['CORRAL_BODY_LIMIT MB', { CORRAL_BODY_LIMIT: '5MB' }, { bodyLimit: 5 * 1024 * 1024 }],
    ['CORRAL_BODY_LIMIT 1kb (min)', { CORRAL_BODY_LIMIT: '1kb' }, { bodyLimit: 1024 }],
    ['CORRAL_BODY_LIMIT 1024mb (max)', { CORRAL_BODY_LIMIT: '1024mb' }, { bodyLimit: 1024 ** 3 }],
    ['CORRAL_API_PREFIX', { CORRAL_API_PREFIX: '/v1' }, { apiPrefix: '/v1' }],
    ['CORRAL_API_PREFIX nested', { CORRAL_API_PREFIX: '/corral/api-v2' }, { apiPrefix: '/corral/api-v2' }],
    ['CORRAL_STUDIO off', { CORRAL_STUDIO: 'off' }, { studio: false }],
    ['CORRAL_STUDIO on', { CORRAL_STUDIO: 'on' }, { studio: true }],
    ['CORRAL_API_PREFIX taking /studio turns the studio off', { CORRAL_API_PREFIX: '/studio' }, { apiPrefix: '/studio', studio: false }],
    ['CORRAL_API_PREFIX under /studio turns the studio off', { CORRAL_API_PREFIX: '/studio/api' }, { apiPrefix: '/studio/api', studio: false }],
    ['CORRAL_API_PREFIX /studios leaves the studio on', { CORRAL_API_PREFIX: '/studios' }, { apiPrefix: '/studios', studio: true }],
    ['CORRAL_SHUTDOWN_TIMEOUT_MS', { CORRAL_SHUTDOWN_TIMEOUT_MS: '2500' }, { shutdownTimeoutMs: 2500 }],
    ['CORRAL_BODY_TIMEOUT_MS', { CORRAL_BODY_TIMEOUT_MS: '30000' }, { bodyTimeoutMs: 30000 }],
    ['CORRAL_BODY_TIMEOUT_MS min', { CORRAL_BODY_TIMEOUT_MS: '100' }, { bodyTimeoutMs: 100 }],
    ['CORRAL_BODY_TIMEOUT_MS max', { CORRAL_BODY_TIMEOUT_MS: '3600000' }, { bodyTimeoutMs: 3_600_000 }],
    ['CORRAL_SCHEMA_POLL_MS', { CORRAL_SCHEMA_POLL_MS: '50' }, { schemaPollMs: 50 }],
    ['CORRAL_SCHEMA_POLL_MS max', { CORRAL_SCHEMA_POLL_MS: '60000' }, { schemaPollMs: 60000 }],
    ['CORRAL_DB_CONNECT_TIMEOUT_MS', { CORRAL_DB_CONNECT_TIMEOUT_MS: '1500' }, { dbConnectTimeoutMs: 1500 }],
    ['CORRAL_DB_STATEMENT_TIMEOUT_MS', { CORRAL_DB_STATEMENT_TIMEOUT_MS: '120000' }, { dbStatementTimeoutMs: 120000 }],
    ['CORRAL_EXACT_COUNT_LIMIT', { CORRAL_EXACT_COUNT_LIMIT: '5000' }, { exactCountLimit: 5000 }],
    ['CORRAL_EXACT_COUNT_LIMIT zero', { CORRAL_EXACT_COUNT_LIMIT: '0' }, { exactCountLimit: 0 }],
    ['CORRAL_MAX_OFFSET', { CORRAL_MAX_OFFSET: '1000000' }, { maxOffset: 1_000_000 }],
    ['CORRAL_CORS_ORIGINS', { CORRAL_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }, { corsOrigins: ['https://app.example.com', 'http://localhost:5173'] }],
    ['CORRAL_CORS_ORIGINS any', { CORRAL_CORS_ORIGINS: '*' }, { corsOrigins: ['*'] }],
    ['CORRAL_ALLOWED_HOSTS', { CORRAL_ALLOWED_HOSTS: 'Corral.Internal,10.0.0.5,[fd00::1]' }, { allowedHosts: ['corral.internal', '10.0.0.5', '[fd00::1]'] }],
    ['CORRAL_TRUSTED_PROXIES', { CORRAL_TRUSTED_PROXIES: '10.0.0.5, 10.1.0.0/16,fd00::/8,::1' }, { trustedProxies: ['10.0.0.5', '10.1.0.0/16', 'fd00::/8', '::1'] }],
    ['CORRAL_WORKERS 1 (one process)', { CORRAL_WORKERS: '1' }, { workers: 1 }],
    ['CORRAL_WORKERS', { CORRAL_WORKERS: '4' }, { workers: 4 }],
    ['CORRAL_WORKERS max', { CORRAL_WORKERS: '256' }, { workers: 256 }],
    [
      'CORRAL_WORKERS with an in-memory SQLite database (forced to 1)',
      { CORRAL_WORKERS: '4', DATABASE_URL: 'sqlite::memory:' },
      { workers: 1, database: { dialect: 'sqlite', file: ':memory:' } },
    ],
    [
      'CORRAL_WORKERS with a SQLite file',
      { CORRAL_WORKERS: '3', DATABASE_URL: 'sqlite:/tmp/x.sqlite' },
      { workers: 3, database: { dialect: 'sqlite', file: '/tmp/x.sqlite' } },
    ],
  ])('reads %s', (_title, env, expected) => {
    expect(loadConfig([], env).config).toEqual({ ...DEFAULTS, ...expected });
  });
});

describe('loadConfig DATABASE_URL', () => {
  it.each<[string, Env, Config['database']]>([
    ['sqlite:<path>', { DATABASE_URL: 'sqlite:./data/x.db' }, { dialect: 'sqlite', file: './data/x.db' }],
    ['sqlite://<relative path>', { DATABASE_URL: 'sqlite://./x.db' }, { dialect: 'sqlite', file: './x.db' }],
    ['sqlite:///<absolute path>', { DATABASE_URL: 'sqlite:///var/lib/x.db' }, { dialect: 'sqlite', file: '/var/lib/x.db' }],
    ['sqlite::memory:', { DATABASE_URL: 'sqlite::memory:' }, { dialect: 'sqlite', file: ':memory:' }],
    ['sqlite://:memory:', { DATABASE_URL: 'sqlite://:memory:' }, { dialect: 'sqlite', file: ':memory:' }],
    [
      'postgres://',
      { DATABASE_URL: 'postgres://u:p@localhost:5432/corral' },
      { dialect: 'postgres', url: 'postgres://u:p@localhost:5432/corral', poolSize: 10 },
    ],
    [
      'postgresql://',
      { DATABASE_URL: 'postgresql://localhost/corral' },
      { dialect: 'postgres', url: 'postgresql://localhost/corral', poolSize: 10 },
    ],
    [
      'mysql://',
      { DATABASE_URL: 'mysql://root@127.0.0.1:3306/corral' },
      { dialect: 'mysql', url: 'mysql://root@127.0.0.1:3306/corral', poolSize: 10 },
    ],
    [
      'mariadb:// rewritten to mysql://',
      { DATABASE_URL: 'mariadb://root:pw@127.0.0.1/corral?charset=utf8mb4' },
      { dialect: 'mysql', url: 'mysql://root:pw@127.0.0.1/corral?charset=utf8mb4', poolSize: 10 },
    ],
    [
      'a scheme in capitals',
      { DATABASE_URL: 'MariaDB://db/corral' },
      { dialect: 'mysql', url: 'mysql://db/corral', poolSize: 10 },
    ],
    [
      'CORRAL_DB_POOL_SIZE',
      { DATABASE_URL: 'postgres://localhost/corral', CORRAL_DB_POOL_SIZE: '25' },
      { dialect: 'postgres', url: 'postgres://localhost/corral', poolSize: 25 },
    ],
  ])('accepts %s', (_title, env, database) => {
    expect(loadConfig([], env).config.database).toEqual(database);
  });
});

describe('loadConfig flags', () => {
  const env: Env = {
    PORT: '4000',
    HOST: '10.0.0.1',
    DATABASE_URL: 'sqlite::memory:',
    CORRAL_SCHEMA: './env-schema.json',
  };

  it('lets every flag beat its env var, in the spaced form', () => {
    const argv = ['start', '--port', '3000', '--host', '0.0.0.0', '--database', 'postgres://db/corral', '--schema', './schema.json'];
    expect(loadConfig(argv, env)).toEqual({
      command: 'start',
      config: {
        ...DEFAULTS,
        port: 3000,
        host: '0.0.0.0',
        database: { dialect: 'postgres', url: 'postgres://db/corral', poolSize: 10 },
        schemaFile: './schema.json',
      },
    });
  });

  it('lets every flag beat its env var, in the = form', () => {
    const argv = ['--port=3000', '--host=0.0.0.0', '--database=mariadb://db/corral', '--schema=./schema.json'];
    expect(loadConfig(argv, env).config).toEqual({
      ...DEFAULTS,
      port: 3000,
      host: '0.0.0.0',
      database: { dialect: 'mysql', url: 'mysql://db/corral', poolSize: 10 },
      schemaFile: './schema.json',
    });
  });

  it('keeps "=" inside a value given in the = form', () => {
    const argv = ['--database=postgres://db/corral?options=-c%20x=1'];
    expect(loadConfig(argv, {}).config.database).toEqual({
      dialect: 'postgres',
      url: 'postgres://db/corral?options=-c%20x=1',
      poolSize: 10,
    });
  });

  it('uses env for settings without a flag', () => {
    expect(loadConfig(['--port', '3000'], env).config.host).toBe('10.0.0.1');
  });

  it('lets the last of a repeated flag win', () => {
    expect(loadConfig(['--port', '1', '--port=2'], {}).config.port).toBe(2);
  });
});

describe('loadConfig errors name the setting', () => {
  it.each<[string, string[], Env, string]>([
    // command line
    ['unknown command', ['serve'], {}, 'unknown command "serve"'],
    ['second command', ['start', 'start'], {}, 'unexpected argument "start"'],
    ['unknown flag', ['--verbose'], {}, 'unknown option "--verbose"'],
    ['unknown flag in = form', ['--nope=1'], {}, 'unknown option "--nope"'],
    ['flag without value at the end', ['--port'], {}, '--port needs a value'],
    ['flag followed by a flag', ['--host', '--port', '1'], {}, '--host needs a value'],
    ['flag with empty = value', ['--schema='], {}, '--schema must not be empty'],
    // PORT
    ['PORT not a number', [], { PORT: 'abc' }, 'PORT must be an integer from 0 to 65535 (got "abc")'],
    ['PORT too large', [], { PORT: '65536' }, 'PORT must be an integer from 0 to 65535 (got "65536")'],
    ['PORT negative', [], { PORT: '-1' }, 'PORT must be an integer'],
    ['PORT fraction', [], { PORT: '80.5' }, 'PORT must be an integer'],
    ['PORT exponent', [], { PORT: '1e3' }, 'PORT must be an integer'],
    ['PORT with spaces', [], { PORT: ' 80' }, 'PORT must be an integer'],
    ['--port names the flag', ['--port', 'x'], { PORT: '80' }, '--port must be an integer from 0 to 65535 (got "x")'],
    ['--port= names the flag', ['--port=99999'], {}, '--port must be an integer'],
    // HOST
    ['HOST with a space', [], { HOST: 'a b' }, 'HOST must be a host name or IP address (got "a b")'],
    ['--host with a URL', ['--host', 'http://x'], {}, '--host must be a host name or IP address'],
    // DATABASE_URL
    ['DATABASE_URL unknown scheme', [], { DATABASE_URL: 'mongodb://x/y' }, 'DATABASE_URL must start with sqlite:'],
    ['DATABASE_URL bare path', [], { DATABASE_URL: './x.db' }, 'DATABASE_URL must start with sqlite:'],
    ['DATABASE_URL sqlite without path', [], { DATABASE_URL: 'sqlite:' }, 'DATABASE_URL needs a file path'],
    ['DATABASE_URL sqlite:// without path', [], { DATABASE_URL: 'sqlite://' }, 'DATABASE_URL needs a file path'],
    ['DATABASE_URL postgres without //', [], { DATABASE_URL: 'postgres:corral' }, 'DATABASE_URL must be a URL like'],
    ['DATABASE_URL unparsable', [], { DATABASE_URL: 'postgres://host:port/db' }, 'DATABASE_URL is not a valid URL'],
    ['DATABASE_URL bad mysql port', [], { DATABASE_URL: 'mysql://h:99999999/db' }, 'DATABASE_URL is not a valid URL'],
    ['--database names the flag', ['--database', 'redis://x'], {}, '--database must start with sqlite:'],
    // LOG_LEVEL
    ['LOG_LEVEL unknown', [], { LOG_LEVEL: 'verbose' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")'],
    ['LOG_LEVEL prototype key', [], { LOG_LEVEL: 'constructor' }, 'LOG_LEVEL must be one of'],
    // CORRAL_BODY_LIMIT
    ['CORRAL_BODY_LIMIT too small', [], { CORRAL_BODY_LIMIT: '1023' }, 'CORRAL_BODY_LIMIT must be a size from 1kb to 1024mb'],
    ['CORRAL_BODY_LIMIT too large', [], { CORRAL_BODY_LIMIT: '1025mb' }, 'CORRAL_BODY_LIMIT must be a size'],
    ['CORRAL_BODY_LIMIT unknown unit', [], { CORRAL_BODY_LIMIT: '1gb' }, 'CORRAL_BODY_LIMIT must be a size'],
    ['CORRAL_BODY_LIMIT fraction', [], { CORRAL_BODY_LIMIT: '1.5mb' }, 'CORRAL_BODY_LIMIT must be a size'],
    ['CORRAL_BODY_LIMIT words', [], { CORRAL_BODY_LIMIT: 'big' }, 'CORRAL_BODY_LIMIT must be a size'],
    // CORRAL_STUDIO
    ['CORRAL_STUDIO not on/off', [], { CORRAL_STUDIO: 'yes' }, 'CORRAL_STUDIO must be on or off (got "yes")'],
    ['CORRAL_STUDIO=on with the prefix on /studio', [], { CORRAL_STUDIO: 'on', CORRAL_API_PREFIX: '/studio' }, 'CORRAL_STUDIO=on needs /studio for the studio'],
    // CORRAL_API_PREFIX
    ['CORRAL_API_PREFIX without leading slash', [], { CORRAL_API_PREFIX: 'api' }, 'CORRAL_API_PREFIX must start with "/"'],
    ['CORRAL_API_PREFIX with trailing slash', [], { CORRAL_API_PREFIX: '/api/' }, 'CORRAL_API_PREFIX must start with "/"'],
    ['CORRAL_API_PREFIX root only', [], { CORRAL_API_PREFIX: '/' }, 'CORRAL_API_PREFIX must start with "/"'],
    ['CORRAL_API_PREFIX double slash', [], { CORRAL_API_PREFIX: '/a//b' }, 'CORRAL_API_PREFIX must start with "/"'],
    ['CORRAL_API_PREFIX with a colon', [], { CORRAL_API_PREFIX: '/api:v1' }, 'CORRAL_API_PREFIX must start with "/"'],
    ['CORRAL_API_PREFIX dot segment', [], { CORRAL_API_PREFIX: '/..' }, 'CORRAL_API_PREFIX must start with "/"'],
    // CORRAL_DB_POOL_SIZE
    ['CORRAL_DB_POOL_SIZE zero', [], { CORRAL_DB_POOL_SIZE: '0' }, 'CORRAL_DB_POOL_SIZE must be an integer from 1 to 100 (got "0")'],
    ['CORRAL_DB_POOL_SIZE too large', [], { CORRAL_DB_POOL_SIZE: '101' }, 'CORRAL_DB_POOL_SIZE must be an integer from 1 to 100'],
    // CORRAL_BODY_TIMEOUT_MS
    ['CORRAL_BODY_TIMEOUT_MS zero', [], { CORRAL_BODY_TIMEOUT_MS: '0' }, 'CORRAL_BODY_TIMEOUT_MS must be an integer from 100 to 3600000 (got "0")'],
    ['CORRAL_BODY_TIMEOUT_MS above an hour', [], { CORRAL_BODY_TIMEOUT_MS: '3600001' }, 'CORRAL_BODY_TIMEOUT_MS must be an integer from 100 to 3600000'],
    ['CORRAL_BODY_TIMEOUT_MS words', [], { CORRAL_BODY_TIMEOUT_MS: '10s' }, 'CORRAL_BODY_TIMEOUT_MS must be an integer'],
    // CORRAL_SHUTDOWN_TIMEOUT_MS
    ['CORRAL_SHUTDOWN_TIMEOUT_MS zero', [], { CORRAL_SHUTDOWN_TIMEOUT_MS: '0' }, 'CORRAL_SHUTDOWN_TIMEOUT_MS must be an integer from 1 to 600000'],
    ['CORRAL_SHUTDOWN_TIMEOUT_MS words', [], { CORRAL_SHUTDOWN_TIMEOUT_MS: '10s' }, 'CORRAL_SHUTDOWN_TIMEOUT_MS must be an integer'],
    // CORRAL_SCHEMA_POLL_MS
    ['CORRAL_SCHEMA_POLL_MS too small', [], { CORRAL_SCHEMA_POLL_MS: '49' }, 'CORRAL_SCHEMA_POLL_MS must be an integer from 50 to 60000 (got "49")'],
    ['CORRAL_SCHEMA_POLL_MS too large', [], { CORRAL_SCHEMA_POLL_MS: '60001' }, 'CORRAL_SCHEMA_POLL_MS must be an integer from 50 to 60000'],
    ['CORRAL_DB_CONNECT_TIMEOUT_MS too small', [], { CORRAL_DB_CONNECT_TIMEOUT_MS: '99' }, 'CORRAL_DB_CONNECT_TIMEOUT_MS must be an integer from 100 to 600000'],
    ['CORRAL_DB_STATEMENT_TIMEOUT_MS words', [], { CORRAL_DB_STATEMENT_TIMEOUT_MS: '30s' }, 'CORRAL_DB_STATEMENT_TIMEOUT_MS must be an integer from 100'],
    ['CORRAL_EXACT_COUNT_LIMIT words', [], { CORRAL_EXACT_COUNT_LIMIT: '100k' }, 'CORRAL_EXACT_COUNT_LIMIT must be an integer from 0 to 1000000000 (got "100k")'],
    ['CORRAL_MAX_OFFSET too large', [], { CORRAL_MAX_OFFSET: '1000000001' }, 'CORRAL_MAX_OFFSET must be an integer from 0 to 1000000000'],
    ['CORRAL_CORS_ORIGINS with a path', [], { CORRAL_CORS_ORIGINS: 'https://app.example.com/' }, 'CORRAL_CORS_ORIGINS must be a comma-separated list of origins'],
    ['CORRAL_CORS_ORIGINS empty entry', [], { CORRAL_CORS_ORIGINS: 'https://a.example,' }, 'CORRAL_CORS_ORIGINS must be a comma-separated list'],
    ['CORRAL_ALLOWED_HOSTS with a port', [], { CORRAL_ALLOWED_HOSTS: 'corral.internal:8080' }, 'CORRAL_ALLOWED_HOSTS must be a comma-separated list of host names'],
    ['CORRAL_TRUSTED_PROXIES host name', [], { CORRAL_TRUSTED_PROXIES: 'proxy.internal' }, 'CORRAL_TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges like 10.0.0.0/8 (got "proxy.internal")'],
    ['CORRAL_TRUSTED_PROXIES prefix too long', [], { CORRAL_TRUSTED_PROXIES: '10.0.0.0/33' }, 'CORRAL_TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR ranges like 10.0.0.0/8 (got "10.0.0.0/33")'],
    ['CORRAL_TRUSTED_PROXIES two slashes', [], { CORRAL_TRUSTED_PROXIES: 'fd00::/8/8' }, 'CORRAL_TRUSTED_PROXIES must be a comma-separated list of IP addresses'],
    ['CORRAL_TRUSTED_PROXIES empty entry', [], { CORRAL_TRUSTED_PROXIES: '10.0.0.5,' }, 'CORRAL_TRUSTED_PROXIES must be a comma-separated list of IP addresses'],
    // CORRAL_WORKERS
    ['CORRAL_WORKERS zero', [], { CORRAL_WORKERS: '0' }, 'CORRAL_WORKERS must be an integer from 1 to 256 (got "0")'],
    ['CORRAL_WORKERS too many', [], { CORRAL_WORKERS: '257' }, 'CORRAL_WORKERS must be an integer from 1 to 256'],
    ['CORRAL_WORKERS auto', [], { CORRAL_WORKERS: 'auto' }, 'CORRAL_WORKERS must be an integer'],
  ])('rejects %s', (_title, argv, env, message) => {
    const error = errorOf(argv, env);
    expect(error.message).toContain(message);
    expect(error.message).not.toContain('\n');
  });

  it('never shows a database password', () => {
    for (const url of ['postgres://u:s3cret@h:bad/db', 'pg://u:s3cret@h/db', 'mysql://u:p@s3cret@h:x/db']) {
      const error = errorOf([], { DATABASE_URL: url });
      expect(error.message).toMatch(/^DATABASE_URL /);
      expect(error.message).not.toContain('s3cret');
      expect(error.message).toContain('***');
    }
  });

  it('keeps a very long bad value on one short line', () => {
    const error = errorOf([], { HOST: `a b\n${'x'.repeat(500)}` });
    expect(error.message).not.toContain('\n');
    expect(error.message.length).toBeLessThan(200);
  });
});

describe('loadConfig authentication settings', () => {
  it('reads root credentials, secret and token lifetime', () => {
    const { config } = loadConfig([], {
      CORRAL_ROOT_EMAIL: 'admin@example.com',
      CORRAL_ROOT_PASSWORD: 'pw',
      CORRAL_AUTH_SECRET: 'x'.repeat(32),
      CORRAL_TOKEN_TTL_SECONDS: '3600',
    });
    expect(config.auth).toEqual({ enabled: true, rootEmail: 'admin@example.com', rootPassword: 'pw', secret: 'x'.repeat(32), tokenTtlSeconds: 3600 });
  });

  it('allows CORRAL_AUTH=off only on a loopback host', () => {
    expect(loadConfig([], { CORRAL_AUTH: 'off' }).config.auth.enabled).toBe(false);
    expect(loadConfig([], { CORRAL_AUTH: 'off', HOST: '::1' }).config.auth.enabled).toBe(false);
    expect(errorOf([], { CORRAL_AUTH: 'off', HOST: '0.0.0.0' }).message).toContain('CORRAL_AUTH=off');
    expect(errorOf(['--host', '10.0.0.5'], { CORRAL_AUTH: 'off' }).message).toContain('loopback');
  });

  it('refuses bad values', () => {
    expect(errorOf([], { CORRAL_AUTH: 'maybe' }).message).toContain('CORRAL_AUTH must be on or off');
    expect(errorOf([], { CORRAL_AUTH_SECRET: 'short' }).message).toContain('CORRAL_AUTH_SECRET must be at least 32');
    expect(errorOf([], { CORRAL_TOKEN_TTL_SECONDS: '5' }).message).toContain('CORRAL_TOKEN_TTL_SECONDS');
  });
});

describe('introspection settings', () => {
  it('is off by default, on with the bare flag, the flag with a value, or CORRAL_INTROSPECT=on', () => {
    expect(loadConfig([], {}).config.introspect).toBeUndefined();
    expect(loadConfig(['start', '--introspect'], {}).config.introspect).toEqual({ include: [], exclude: [] });
    expect(loadConfig(['--introspect', 'off'], {}).config.introspect).toBeUndefined();
    expect(loadConfig(['--introspect', '--port', '1'], {}).config).toMatchObject({ introspect: { include: [], exclude: [] }, port: 1 });
    expect(loadConfig([], { CORRAL_INTROSPECT: 'on' }).config.introspect).toEqual({ include: [], exclude: [] });
  });

  it('reads the table patterns and the PostgreSQL schema', () => {
    const { config } = loadConfig(['--introspect', '--include', 'Invoice*, Customer', '--exclude=tmp_*'], { CORRAL_INTROSPECT_SCHEMA: 'shop' });
    expect(config.introspect).toEqual({ include: ['Invoice*', 'Customer'], exclude: ['tmp_*'], schema: 'shop' });
  });

  it('refuses bad values and patterns without introspection', () => {
    expect(errorOf([], { CORRAL_INTROSPECT: 'yes' }).message).toContain('CORRAL_INTROSPECT must be on or off');
    expect(errorOf(['--introspect', '--include', 'a,,b'], {}).message).toContain('--include must be a comma list');
    expect(errorOf(['--exclude', 'a'], {}).message).toContain('--exclude applies to introspection only');
  });
});
