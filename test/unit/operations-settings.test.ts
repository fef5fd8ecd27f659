import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';
import { loggedUrl } from '../../src/http/request-log.js';
import { actionLabel, routeFamily } from '../../src/metrics/request-metrics.js';

const config = (env: Record<string, string>) => loadConfig([], env).config;

function refusal(env: Record<string, string>): string {
  try {
    loadConfig([], env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('CORRAL_METRICS and CORRAL_METRICS_TOKEN', () => {
  it('are off by default and with off', () => {
    expect(config({}).metrics).toBeUndefined();
    expect(config({ CORRAL_METRICS: 'off', CORRAL_METRICS_TOKEN: 'ignored' }).metrics).toBeUndefined();
  });

  it('on needs a token of 16 characters or more, and says so', () => {
    expect(refusal({ CORRAL_METRICS: 'on' })).toMatch(/CORRAL_METRICS=on .*needs CORRAL_METRICS_TOKEN/);
    expect(refusal({ CORRAL_METRICS: 'on', CORRAL_METRICS_TOKEN: 'short' })).toBe('CORRAL_METRICS_TOKEN must be at least 16 characters');
    expect(config({ CORRAL_METRICS: 'on', CORRAL_METRICS_TOKEN: 'a-token-of-enough-length' }).metrics).toEqual({ mode: 'token', token: 'a-token-of-enough-length' });
  });

  it('takes a separate listen address host:port (IPv6 in brackets)', () => {
    expect(config({ CORRAL_METRICS: '127.0.0.1:9464' }).metrics).toEqual({ mode: 'address', host: '127.0.0.1', port: 9464 });
    expect(config({ CORRAL_METRICS: 'localhost:9100' }).metrics).toEqual({ mode: 'address', host: 'localhost', port: 9100 });
    expect(config({ CORRAL_METRICS: '[::1]:9464' }).metrics).toEqual({ mode: 'address', host: '::1', port: 9464 });
  });

  it.each(['yes', '9464', '127.0.0.1', '127.0.0.1:0', '127.0.0.1:70000', 'http://127.0.0.1:9464'])('refuses %s', (value) => {
    expect(refusal({ CORRAL_METRICS: value })).toMatch(/^CORRAL_METRICS must be off, on, or a listen address host:port/);
  });
});

describe('CORRAL_COMPRESSION', () => {
  it('is on unless off', () => {
    expect(config({}).compression).toBeUndefined();
    expect(config({ CORRAL_COMPRESSION: 'on' }).compression).toBe(true);
    expect(config({ CORRAL_COMPRESSION: 'off' }).compression).toBe(false);
    expect(refusal({ CORRAL_COMPRESSION: 'gzip' })).toBe('CORRAL_COMPRESSION must be on or off (got "gzip")');
  });
});

describe('the request log line', () => {
  it.each([
    ['/api/posts:list', '/api/posts:list'],
    ['/api/posts:list?filter=%7B%7D&page=2', '/api/posts:list?filter&page'],
    ['/api/posts:subscribe?ticket=st1.abc.def', '/api/posts:subscribe?ticket'],
    ['/api/posts?fields[]=a&fields[]=b&flag', '/api/posts?fields[]&fields[]&flag'],
    ['/healthz?', '/healthz?'],
  ])('shows %s as %s', (url, shown) => {
    expect(loggedUrl(url)).toBe(shown);
  });
});

describe('metric labels', () => {
  it('name route families from route patterns, never paths', () => {
    expect(routeFamily('/api/*', '/api')).toBe('api');
    expect(routeFamily('/api/openapi.json', '/api')).toBe('openapi');
    expect(routeFamily('/api/docs/:file', '/api')).toBe('openapi');
    expect(routeFamily('/studio/assets/*', '/api')).toBe('studio');
    expect(routeFamily('/', '/api')).toBe('studio');
    expect(routeFamily('/readyz', '/api')).toBe('health');
    expect(routeFamily('/metrics', '/api')).toBe('metrics');
    expect(routeFamily(undefined, '/api')).toBe('other');
  });

  it.each([
    ['GET', '/api/posts:list?page=2', 'list'],
    ['GET', '/api/posts/17', 'get'],
    ['PATCH', '/api/posts/17', 'update'],
    ['POST', '/api/posts', 'create'],
    ['DELETE', '/api/posts?filter=%7B%7D', 'destroy'],
    ['GET', '/api/posts/17/comments:list', 'list'],
    ['POST', '/api/posts:subscribe', 'subscribe'],
    ['GET', '/api/posts:doSomething123', 'other'],
    ['OPTIONS', '/api/posts', 'other'],
    ['GET', '/api/%zz', 'other'],
  ])('%s %s counts as action %s', (method, url, action) => {
    expect(actionLabel(method, url, '/api')).toBe(action);
  });
});
