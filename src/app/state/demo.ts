/** First run: when the store is empty and the app ships a demo trace, import it once. */
import { getSetting } from '../../db/repo.ts';
import type { Importer } from './importer.svelte.ts';
import type { Library } from './library.svelte.ts';
import type { Services } from './services.ts';

const DEMO_URL = 'demo/demo-trace.json';
const OFFERED = 'demo-offered';

export async function loadDemoOnFirstRun(
  services: Services,
  library: Library,
  importer: Importer,
  fetchFn: typeof fetch = fetch,
): Promise<boolean> {
  if (library.traces.length > 0 || (await getSetting<boolean>(services.db, OFFERED))) return false;
  // Recorded by the engine (the database's writer) while the demo is fetched: a busy engine must
  // not hold the first-run import back.
  const offered = services.engine.setSetting(OFFERED, true);
  let res: Response;
  try {
    res = await fetchFn(DEMO_URL, { cache: 'no-store' });
  } catch {
    await offered;
    return false;
  }
  // A static host may answer a missing file with index.html: insist on JSON.
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok || !/json/i.test(type)) {
    await offered;
    return false;
  }
  const blob = await res.blob();
  await Promise.all([
    offered,
    importer.start([{ blob, name: 'demo-trace.json', path: 'demo/demo-trace.json' }]),
  ]);
  return true;
}
