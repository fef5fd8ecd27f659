import type { FastifyReply } from 'fastify';
import type { ActionResult } from '../actions/action-context.js';
import type { ApiError } from '../errors/api-error.js';
import { renderError } from './render-error.js';

/** A comment line this often keeps proxies from closing a stream while a long job runs (as the change feed's). */
export const JOB_HEARTBEAT_MS = 15_000;

type Job = Extract<ActionResult, { kind: 'job' }>;

/** Whether the client asked for the progress stream (`Accept: text/event-stream`). */
export function wantsEventStream(accept: string | undefined): boolean {
  return accept !== undefined && /(^|,)\s*text\/event-stream\b/i.test(accept);
}

function frame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * A job's progress as `text/event-stream` (docs/import-export.md#progress): `progress` events
 * while it runs, then one `result` event with the body the JSON answer would have, or one
 * `error` event with the error body (and its `status`). The job runs to its end whether or not
 * the client is still there.
 */
export function streamJob(job: Job, reply: FastifyReply, body: (result: ActionResult) => unknown, toError: (error: unknown) => ApiError, headers: Record<string, string | string[]>): void {
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  response.write(': started\n\n');
  const write = (text: string): void => {
    if (!response.destroyed && !response.writableEnded) response.write(text);
  };
  const heartbeat = setInterval(() => write(': heartbeat\n\n'), JOB_HEARTBEAT_MS);
  heartbeat.unref();
  const end = (text: string): void => {
    clearInterval(heartbeat);
    write(text);
    if (!response.destroyed && !response.writableEnded) response.end();
  };
  job
    .run((progress) => write(frame('progress', progress)))
    .then(
      (result) => end(frame('result', body(result))),
      (error: unknown) => {
        const apiError = toError(error);
        if (apiError.status >= 500) reply.log.error({ err: error }, 'a job answered as an event stream failed');
        const rendered = renderError(apiError);
        end(frame('error', { status: rendered.status, ...rendered.body }));
      },
    );
}
