/** Family `filters`: the query semantics of spec §4.3, against an oracle over the run's own objects. */
import { afterAll } from 'vitest';
import { coverage, filtersChecks } from '../src/checks/filters.js';
import { registerChecks } from '../src/run/register.js';
import { getSession } from '../src/run/session.js';

const session = await getSession();
await session.exerciseAll();
registerChecks(session, filtersChecks, session);
afterAll(({}, suite) => {
  suite.meta.filterCoverage = [...coverage].map(([triple, c]) => ({ triple, checked: c.checked, skipped: c.checked ? undefined : c.skipped }));
});
