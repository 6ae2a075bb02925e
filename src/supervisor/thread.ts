/**
 * A module's exported functions, called in a worker thread of their own. What the calls load and allocate
 * (the check registry, the document's parser and validator, an HTTP client) lives in the thread's heap and
 * goes with the thread: the supervising CLI stays small beside the suites' process (docs/performance.md,
 * "Decisions, and why"). A function takes one structured-cloneable argument and returns one; a
 * UsageError thrown in the thread is thrown again as a UsageError, so bad input stays one line and exit 2.
 * A module that keeps state between calls exports `threadOwned()`: called once, as the thread starts, its
 * functions are called beside the module's own, and what they keep is the thread's, in their closure.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { UsageError } from '../config/errors.js';

type Argument<F> = F extends (arg: infer A) => unknown ? A : never;
type Answer<F> = F extends (...args: never[]) => infer R ? Awaited<R> : never;

export interface Thread<M> {
  call<K extends keyof M & string>(name: K, arg: Argument<M[K]>): Promise<Answer<M[K]>>;
  /** Ends the thread (an idle connection of its HTTP client would keep it alive); its heap is freed. */
  end(): Promise<void>;
}

interface Call {
  id: number;
  name: string;
  arg: unknown;
}

type Reply = { id: number; value: unknown } | { id: number; usage: boolean; message: string; stack?: string };

const MODULE = 'threadModule';

/** `module` is the file URL of the module whose functions the thread calls (its .ts file when run from source). */
export function openThread<M>(module: URL): Thread<M> {
  const data = { [MODULE]: module.href };
  // Run from source (`npx tsx src/cli.ts`, or under vitest), the thread registers tsx before it loads this
  // module: Node 20 does not give a worker thread the module hooks of the thread that starts it.
  const worker = import.meta.url.endsWith('.ts')
    ? new Worker(
        `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`,
        { eval: true, workerData: data },
      )
    : new Worker(new URL(import.meta.url), { workerData: data });
  const pending = new Map<number, { resolve: (value: never) => void; reject: (e: Error) => void }>();
  let gone: Error | undefined;
  const failAll = (e: Error) => {
    gone ??= e;
    for (const p of pending.values()) p.reject(gone);
    pending.clear();
  };
  worker.on('message', (reply: Reply) => {
    const waiting = pending.get(reply.id);
    pending.delete(reply.id);
    if (!waiting) return;
    if ('value' in reply) waiting.resolve(reply.value as never);
    else if (reply.usage) waiting.reject(new UsageError(reply.message));
    else waiting.reject(Object.assign(new Error(reply.message), { stack: reply.stack }));
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`the thread of ${module.pathname} exited (code ${code})`)));
  let next = 0;
  return {
    call(name, arg) {
      if (gone) return Promise.reject(gone);
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, name, arg } satisfies Call);
      });
    },
    async end() {
      await worker.terminate();
    },
  };
}

/** The same module's file, compiled or from source, as the module calling this runs. */
export function sibling(caller: string, relative: string): URL {
  return new URL(caller.endsWith('.ts') ? relative.replace(/\.js$/, '.ts') : relative, caller);
}

if (!isMainThread && workerData?.[MODULE]) {
  type Functions = Record<string, (arg: unknown) => unknown>;
  const loaded = (import(workerData[MODULE] as string) as Promise<Functions & { threadOwned?: () => Functions }>).then(
    (module) => ({ ...module, ...module.threadOwned?.() }) as Functions,
  );
  parentPort!.on('message', ({ id, name, arg }: Call) => {
    loaded
      .then((module) => {
        if (typeof module[name] !== 'function') throw new Error(`${workerData[MODULE]} exports no function ${name}`);
        return module[name](arg);
      })
      .then(
        (value) => parentPort!.postMessage({ id, value } satisfies Reply),
        (e: Error) =>
          parentPort!.postMessage({
            id,
            usage: e instanceof UsageError,
            message: e.message,
            stack: e.stack,
          } satisfies Reply),
      );
  });
}
