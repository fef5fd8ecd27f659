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
 * Whether `origin` is the server's own origin as this request reached it: the scheme the
 * request came in on and its `Host` (host and port), so the studio and /api/docs pages served
 * by Corral may call it. A page on a rebinding DNS name also looks same-origin here; on a
 * loopback listener the Host check refuses it first, and elsewhere it carries no credential a
 * page can reach (tokens travel in `Authorization`, never in cookies).
 */
export function isSameOrigin(origin: string, host: string | undefined, scheme: string): boolean {
  if (host === undefined) return false;
  const prefix = `${scheme}://`;
  if (!origin.startsWith(prefix)) return false;
  const given = origin.slice(prefix.length).toLowerCase();
  const own = host.toLowerCase();
  // Browsers leave out the scheme's default port; a Host header may carry it.
  return given === own || `${given}:${scheme === 'https' ? '443' : '80'}` === own;
}

/**
 * The browser rails of API.md section 12, checked before any body is read or any action runs:
 * a web page may call Corral only from an allowed origin or from Corral's own origin (the
 * studio, /api/docs), and a page on a rebinding DNS name cannot reach a Corral that listens on
 * loopback. `scheme` is the protocol the request arrived on (http, or https behind a trusted
 * proxy). Returns the refusal, or undefined.
 */
export function compileBrowserGuard(rules: BrowserRules): (headers: IncomingHttpHeaders, scheme?: () => string) => ApiError | undefined {
  const anyOrigin = rules.corsOrigins.includes('*');
  const origins = new Set(rules.corsOrigins);
  const checkHost = isLoopback(rules.listenHost);
  const hosts = new Set<string>([...LOOPBACK_HOSTS, ...rules.allowedHosts.map((host) => host.toLowerCase())]);
  return (headers, scheme) => {
    if (checkHost) {
      const host = typeof headers.host === 'string' ? hostName(headers.host) : '';
      if (!hosts.has(host)) {
        return new ApiError('HOST_FORBIDDEN', `this server answers on a loopback address; Host ${JSON.stringify(host.slice(0, 100))} is not allowed (see CORRAL_ALLOWED_HOSTS)`);
      }
    }
    const origin = headers.origin;
    if (origin !== undefined && !anyOrigin && !origins.has(origin) && !isSameOrigin(origin, headers.host, scheme?.() ?? 'http')) {
      return new ApiError('ORIGIN_FORBIDDEN', `origin ${JSON.stringify(origin.slice(0, 200))} is not allowed (see CORRAL_CORS_ORIGINS)`);
    }
    return undefined;
  };
}
