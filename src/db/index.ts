/** Storage: the Dexie schema (IndexedDB) and its repositories, used by the app and the workers. */

export { engineLabels, saveLabel } from './labels.ts';
export { RECORD_VERSIONS, RECORD_VERSIONS_KEY } from './record-versions.ts';
export { deleteTrace, getOriginal, getSetting, isQuotaError, listCaseRows, listTraces } from './repo.ts';
export { type MemtraceDb, openDb, V1_STORES } from './schema.ts';
