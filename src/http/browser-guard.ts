import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../errors/api-error.js';

/** Host names a loopback listener always answers to (any port). */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const;

export interface BrowserRules {
  /** Allowed origins; `*` allows any. */
  corsOrigins: readonly string[];
  /** Extra host names accepted on a loopback listener. */
  allowedHosts: readonly string[];
  /** The address the server listens on. */
  listenHost: string;
}

/** Whether a listen address only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/** `Host` without its port, lower case: `[::1]:8080` → `[::1]`, `LocalHost:80` → `localhost`. */
export function hostName(header: string): string {
  const lower = header.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  const colon = lower.indexOf(':');
  return colon === -1 ? lower : lower.slice(0, colon);
}

/**
 * The browser rails of API.md section 12, checked before any body is read or any action runs:
 * a web page may call Corral only from an allowed origin, and a page on a rebinding DNS name
 * cannot reach a Corral that listens on loopback. Returns the refusal, or undefined.
 */
export function compileBrowserGuard(rules: BrowserRules): (headers: IncomingHttpHeaders) => ApiError | undefined {
  const anyOrigin = rules.corsOrigins.includes('*');
  const origins = new Set(rules.corsOrigins);
  const checkHost = isLoopback(rules.listenHost);
  const hosts = new Set<string>([...LOOPBACK_HOSTS, ...rules.allowedHosts.map((host) => host.toLowerCase())]);
  return (headers) => {
    if (checkHost) {
      const host = typeof headers.host === 'string' ? hostName(headers.host) : '';
      if (!hosts.has(host)) {
        return new ApiError('HOST_FORBIDDEN', `this server answers on a loopback address; Host ${JSON.stringify(host.slice(0, 100))} is not allowed (see CORRAL_ALLOWED_HOSTS)`);
      }
    }
    const origin = headers.origin;
    if (origin !== undefined && !anyOrigin && !origins.has(origin)) {
      return new ApiError('ORIGIN_FORBIDDEN', `origin ${JSON.stringify(origin.slice(0, 200))} is not allowed (see CORRAL_CORS_ORIGINS)`);
    }
    return undefined;
  };
}
