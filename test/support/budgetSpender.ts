/**
 * A second client of a rate-limited gateway, spending part of its budget while a run goes on: it sends
 * `POST /flows/count` (a limited collection, a read) at a steady pace, whatever it is answered, as another
 * client of a shared account does.
 *
 * `npx tsx test/support/budgetSpender.ts --base-url URL --key KEY --per-minute N [--seconds S] [--stats FILE]`
 * runs one until terminated (or for S seconds) and writes how many it sent and how many were refused.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

export interface Spender {
  counts(): { sent: number; refused: number };
  stop(): Promise<void>;
}

export function startSpender(baseUrl: string, key: string, perMinute: number): Spender {
  const agent = new Agent({ connections: 4 });
  const counted = { sent: 0, refused: 0 };
  const send = async () => {
    counted.sent++;
    try {
      const res = await request(`${baseUrl}/flows/count`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: '{}',
        dispatcher: agent,
      });
      await res.body.dump();
      if (res.statusCode === 429) counted.refused++;
    } catch {
      // A request that got no answer spent nothing of the budget.
    }
  };
  const timer = setInterval(() => void send(), 60_000 / perMinute);
  return {
    counts: () => ({ ...counted }),
    async stop() {
      clearInterval(timer);
      await agent.close();
    },
  };
}

if (process.argv[1]?.endsWith('budgetSpender.ts')) {
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      key: { type: 'string' },
      'per-minute': { type: 'string' },
      seconds: { type: 'string' },
      stats: { type: 'string' },
    },
  });
  if (!values['base-url'] || !values.key || !values['per-minute']) {
    process.stderr.write('budgetSpender: --base-url, --key and --per-minute are required\n');
    process.exit(2);
  }
  const spender = startSpender(values['base-url'], values.key, Number(values['per-minute']));
  const end = () => {
    if (values.stats) writeFileSync(values.stats, JSON.stringify(spender.counts()));
    void spender.stop().then(() => process.exit(0));
  };
  process.on('SIGTERM', end);
  if (values.seconds) setTimeout(end, Number(values.seconds) * 1000);
}
