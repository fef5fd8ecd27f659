import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClusterRelay, INVALIDATE_MESSAGE, INVALIDATED_MESSAGE, type InvalidateMessage, type InvalidatedMessage, type Notice } from '../../src/cluster/invalidation.js';

type Sent = InvalidateMessage | InvalidatedMessage;

function relay(options: { apply?: (notice: Notice) => Promise<void>; send?: (message: Sent) => void; waitMs?: number } = {}) {
  const sent: Sent[] = [];
  const applied: Notice[] = [];
  const log = { warn: vi.fn(), error: vi.fn() };
  const send = options.send ?? ((message: Sent) => void sent.push(message));
  const apply = options.apply ?? (async (notice: Notice) => void applied.push(notice));
  return { sent, applied, log, relay: new ClusterRelay(send, apply, log, options.waitMs) };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('ClusterRelay (a worker\'s side of the invalidation exchange)', () => {
  it('announces a notice to the primary and resolves once the primary confirms that very id', async () => {
    const { sent, relay: r } = relay();
    let done = false;
    const announced = r.announce({ auth: true }).then(() => (done = true));
    expect(sent).toEqual([{ type: INVALIDATE_MESSAGE, id: expect.any(String), notice: { auth: true } }]);
    expect(await r.receive({ type: INVALIDATED_MESSAGE, id: 'someone-else' })).toBe(true);
    await Promise.resolve();
    expect(done).toBe(false);
    expect(await r.receive({ type: INVALIDATED_MESSAGE, id: sent[0]!.id })).toBe(true);
    await announced;
    expect(done).toBe(true);
  });

  it('gives every announcement its own id', () => {
    const { sent, relay: r } = relay();
    void r.announce({ auth: true });
    void r.announce({ auth: false, schemaVersion: 7 });
    expect(new Set(sent.map((message) => message.id)).size).toBe(2);
  });

  it.each([
    ['a change of users or roles', { auth: true }],
    ['a schema change', { auth: false, schemaVersion: 12 }],
  ])('applies %s from another worker, then confirms it', async (_what, notice) => {
    const { sent, applied, relay: r } = relay();
    expect(await r.receive({ type: INVALIDATE_MESSAGE, id: '42:1', notice })).toBe(true);
    expect(applied).toEqual([notice]);
    expect(sent).toEqual([{ type: INVALIDATED_MESSAGE, id: '42:1' }]);
  });

  it('confirms even when applying failed (logged), so the other worker is not held up', async () => {
    const { sent, log, relay: r } = relay({ apply: () => Promise.reject(new Error('database gone')) });
    await r.receive({ type: INVALIDATE_MESSAGE, id: '42:2', notice: { auth: false, schemaVersion: 3 } });
    expect(sent).toEqual([{ type: INVALIDATED_MESSAGE, id: '42:2' }]);
    expect(log.error).toHaveBeenCalledOnce();
  });

  it.each([
    ['a sign-out', { type: 'corral:revoked', jti: 'x', expiresAt: 1 }],
    ['a malformed notice', { type: INVALIDATE_MESSAGE, id: '1', notice: { auth: 'yes' } }],
    ['the shutdown request', 'corral:shutdown'],
  ])('leaves %s to other handlers', async (_what, message) => {
    const { sent, applied, relay: r } = relay();
    expect(await r.receive(message)).toBe(false);
    expect(sent).toEqual([]);
    expect(applied).toEqual([]);
  });

  it('resolves at once (with a warning) when the channel to the primary is gone', async () => {
    const { log, relay: r } = relay({
      send: () => {
        throw new Error('channel closed');
      },
    });
    await r.announce({ auth: true });
    expect(log.warn).toHaveBeenCalledOnce();
  });

  it('stops waiting after its bound when the primary never answers (warned)', async () => {
    vi.useFakeTimers();
    const { log, relay: r } = relay({ waitMs: 2500 });
    let done = false;
    const announced = r.announce({ auth: true }).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(2499);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await announced;
    expect(done).toBe(true);
    expect(log.warn).toHaveBeenCalledOnce();
  });
});
