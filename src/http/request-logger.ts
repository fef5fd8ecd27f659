import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { LogLevel } from '../config/config.js';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;
type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

const ORDER: readonly Method[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

/**
 * A request's logger that becomes a real pino child (with the request id bound) only when
 * something is logged at an enabled level. Fastify makes a child per request, and pino's child
 * serializes its bindings at once: measurable on a key lookup when, at the default `warn` of a
 * production run, nothing is ever written for a request that succeeds.
 */
class DeferredChildLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
    private readonly enabled: ReadonlySet<Method>,
  ) {}

  #real(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  #log(method: Method, args: unknown[]): void {
    if (this.#child === undefined && !this.enabled.has(method)) return;
    (this.#real()[method] as (...values: unknown[]) => void)(...args);
  }

  get level(): FastifyBaseLogger['level'] {
    return this.#child?.level ?? this.parent.level;
  }

  set level(level: FastifyBaseLogger['level']) {
    this.#real().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#log('error', args);
  }

  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }

  info(...args: unknown[]): void {
    this.#log('info', args);
  }

  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/**
 * Fastify's per-request child logger, made lazy when the level is above `info`; undefined (keep
 * Fastify's own) at `info` and below, where every request is logged anyway.
 */
export function requestLoggerFactory(level: LogLevel): ChildLoggerFactory | undefined {
  const enabled = new Set<Method>(level === 'silent' ? [] : ORDER.slice(0, ORDER.indexOf(level) + 1));
  if (enabled.has('info')) return undefined;
  return (logger, bindings, options) => new DeferredChildLogger(logger, bindings, options, enabled);
}
