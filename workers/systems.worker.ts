/**
 * The systems worker: hosts SystemsService (and the prompt-optimisation loop) behind comlink. It
 * opens no database: the engine, the database's one writer, stores the traces its runs produce
 * (through its import, which keeps the graph open) and the loop's runs, over the port the page
 * connects the two by (`connectEngine`, workers/engine-link.ts).
 */
import * as Comlink from 'comlink';
import './abort-transfer.ts';
import type { SystemsApi } from './api.ts';
import { EngineLink } from './engine-link.ts';
import { OptimizeService } from './optimize-service.ts';
import { SystemsService } from './systems-service.ts';

const engine = new EngineLink();
const systems = new SystemsService(engine.importer);
const optimizer = new OptimizeService(engine.runs);
const api = {
  connectEngine: engine.connect.bind(engine),
  inspect: systems.inspect.bind(systems),
  run: systems.run.bind(systems),
  optimize: optimizer.optimize.bind(optimizer),
} satisfies SystemsApi;
Comlink.expose(api);
