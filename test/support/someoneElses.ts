/** A shared server as a team's is: objects someone else made before the run, and more flow runs than a page. */
import { postJson } from './collections.js';

/** Flow runs of someone else's, more than a filter's page of 200. */
const CROWD = 250;

/** Makes someone else's objects on the server; answers the id of one in each collection, by collection path. */
export async function makeSomeoneElses(base: string): Promise<Record<string, string>> {
  const post = <T = Record<string, unknown>>(p: string, body: unknown) => postJson<T>(base, p, body);
  const foreign: Record<string, string> = {};
  const flow = await post('/flows/', { name: 'someone-elses-flow', tags: ['production'] });
  foreign['/flows/'] = String(flow.id);
  foreign['/flow_runs/'] = String((await post('/flow_runs/', { flow_id: flow.id, tags: ['production'] })).id);
  foreign['/deployments/'] = String(
    (await post('/deployments/', { name: 'someone-elses-deployment', flow_id: flow.id })).id,
  );
  foreign['/variables/'] = String((await post('/variables/', { name: 'someone_elses_variable', value: 1 })).id);
  foreign['/artifacts/'] = String((await post('/artifacts/', { type: 'markdown', data: 'someone else' })).id);
  // A server in use holds more than a page of runs: an or_ filter, which cannot be scoped to the run's ids,
  // selects them too, and the run's own lie among them past the first page (filters.oracle reads on).
  for (let i = 0; i < CROWD; i++) await post('/flow_runs/', { flow_id: flow.id, tags: ['production'] });
  return foreign;
}
