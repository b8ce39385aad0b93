/**
 * The systems worker: hosts SystemsService behind comlink. The traces it produces are
 * stored through its own ImportService on the app's database (the same import path as files).
 */
import * as Comlink from 'comlink';
import { openDb } from '../src/db/schema.ts';
import type { SystemsApi } from './api.ts';
import { ImportService } from './import-service.ts';
import { SystemsService } from './systems-service.ts';

Comlink.expose(new SystemsService(new ImportService(openDb())) satisfies SystemsApi);
