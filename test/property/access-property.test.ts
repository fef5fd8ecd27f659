/**
 * The access property (docs/auth.md): for random roles and
 * random requests through every route family, an in-memory oracle holding root's snapshot of
 * every row and the grant checks after each request that
 *   1. no answer holds a field, row or count outside the caller's `view` grant (items and
 *      appends at every level, write answers, change events), and no 2xx read filtered,
 *      sorted, searched or aggregated on a field the grant does not let it read;
 *   2. no stored row changed outside the write grants (diff of root's snapshots);
 *   3. a key of a row outside the caller's scope answers exactly like a missing key.
 * Each scenario creates a role with random resources (actions, field lists, row filters incl.
 * `{{$user.id}}` and an association path, the `own` scope on posts and comments) and a strategy
 * (with `view:own`, `update:own`, `destroy:own`), in two scenarios of three a second such role
 * sent as `X-Role: __union__` (the oracle takes the union: either allows, fields added up, row
 * filters OR-ed), gives them to one user, reseeds rows owned by that user and by others (some
 * created by the user under a seeding role, so their `createdById` is the user's), then sends
 * 6-14 requests as that user. Every row the user creates must carry its id as `createdById`.
 *
 * Run:        npx vitest run test/property/access-property.test.ts   (all three dialects)
 * Reproduce:  ACCESS_SEED=<seed> ACCESS_PATH=<path> CORRAL_TEST_DIALECTS=<dialect> npx vitest run test/property/access-property.test.ts
 *             (both are printed on failure; ACCESS_PATH replays that scenario, shrunk).
 * Longer:     ACCESS_RUNS=<scenarios> (default 110 scenarios, ~1,200 requests, all of them run:
 *             there is no time limit), ACCESS_SEED=<other>.
 * Survey:     ACCESS_SURVEY=1 records every leak and carries on, then prints the leak kinds
 *             per route family, two examples each (ACCESS_PATH=<n> replays one); ACCESS_SHRINK=0
 *             stops at the first failure without shrinking.
 * Self-check: ACCESS_OPEN=1 gives every scenario an unrestricted role; the oracle must then
 *             find nothing (a check of the oracle, not of the server).
 * Decisions where the semantics are silent: a link (nested key, key column, add/set/remove/
 * toggle, association create) needs the relation (or its key column) in the writing side's
 * field list when that list is given; unlinking a row the caller cannot see (hasMany/hasOne
 * set semantics) counts as changing it; a 2xx read whose filter, sort, q or query reaches a
 * collection without a view grant is a failure ("touch"), as is one naming a field outside a
 * view field list ("probe"); `updatedAt` is not judged; create grants get no row filters.
 *
 *
 * Files and system collections: test/property/files-property.test.ts (its own file, so the two
 * suites run side by side).
 */
import { beforeAll, describe, it } from 'vitest';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { checkAccess, setUpHarness } from './support/access-run.js';

for (const dialect of DIALECTS) {
  describe(`access property on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { changesPollMs: 50 });
    let harness: Awaited<ReturnType<typeof setUpHarness>>;
    beforeAll(async () => {
      harness = await setUpHarness(ctx.built, ctx.api);
    });

    it('answers nothing outside the view grant, changes nothing outside the write grants, and answers an out-of-scope key like a missing one', async () => {
      await checkAccess(dialect, harness);
    }, 600_000);
  });
}
