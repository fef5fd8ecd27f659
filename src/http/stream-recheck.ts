import type { StreamRecheck } from '../actions/action-context.js';
import type { Authenticator } from '../auth/authenticator.js';
import { authorize } from '../auth/authorize.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Principal } from '../request/principal.js';
import type { SchemaManager } from '../schema/schema-manager.js';
import { bothGrants, grantsOfScopes } from '../store/scope.js';
import type { Store } from '../store/store.js';

/** What re-authorizing an open stream's caller needs: the request and principal it opened with, and the app's services. */
export interface StreamCaller {
  readonly request: ApiRequest;
  readonly principal: Principal;
  readonly authenticator: Authenticator;
  readonly store: Store;
  readonly schema: SchemaManager;
}

/**
 * How an open event stream's caller is authorized again after a change of users, roles or
 * grants (ChangeFeed.recheck): the principal as its user and API key are stored now (401
 * STREAM_REVOKED when the password changed, the user is gone or disabled, a role was taken
 * away, or the key was destroyed or lost its role), then the same grants a new request would
 * get (403 FORBIDDEN when the roles no longer read the collection). Either refusal ends the stream with a `revoked` event (docs/events.md#revocation).
 */
export function streamRecheck(caller: StreamCaller): StreamRecheck {
  return async () => {
    const principal = await caller.authenticator.recheck(caller.principal);
    const request: ApiRequest = { ...caller.request, principal };
    const snapshot = caller.schema.snapshot;
    const access = await caller.authenticator.access(principal);
    const grants = bothGrants(grantsOfScopes(caller.store.scopesFor(request, snapshot)), authorize(access, request, snapshot));
    return { grants, scopes: grants.view };
  };
}
