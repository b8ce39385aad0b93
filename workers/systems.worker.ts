/**
 * The systems worker: hosts SystemsService (and the prompt-optimisation loop) behind comlink. The traces it produces are
 * stored through its own ImportService on the app's database (the same import path as files).
 */
import * as Comlink from 'comlink';
import { openDb } from '../src/db/schema.ts';
import './abort-transfer.ts';
import type { SystemsApi } from './api.ts';
import { ImportService } from './import-service.ts';
import { OptimizeService } from './optimize-service.ts';
import { SystemsService } from './systems-service.ts';

const db = openDb();
const systems = new SystemsService(new ImportService(db));
const optimizer = new OptimizeService(db);
const api = {
  inspect: systems.inspect.bind(systems),
  run: systems.run.bind(systems),
  optimize: optimizer.optimize.bind(optimizer),
} satisfies SystemsApi;
Comlink.expose(api);
