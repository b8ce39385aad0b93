/** The import worker: hosts ImportService behind comlink. */
import * as Comlink from 'comlink';
import { openDb } from '../src/db/schema.ts';
import type { ImportApi } from './api.ts';
import { ImportService } from './import-service.ts';

Comlink.expose(new ImportService(openDb()) satisfies ImportApi);
