/**
 * Versions of stored record types, kept as tldraw keeps its stores' schema: one `settings` row
 * (`RECORD_VERSIONS_KEY`) holds the version of each table's record shape; a database upgrade
 * reads it (absent: every type at 1, as written before versions), steps each table's rows
 * through its migrations up to `RECORD_VERSIONS`, and writes the new versions. Readers only ever
 * see current shapes; rows themselves carry no version field.
 */
import type { Transaction } from 'dexie';

/**
 * Each table's record version. `runs` 2: stored evidence-flow verdicts carry the attributor's
 * version (`attributor_version` of a case result, `attributorVersion` of a report; null when
 * made before versions, so such a verdict counts as stale).
 */
export const RECORD_VERSIONS = {
  traces: 1,
  blobs: 1,
  cases: 1,
  runs: 2,
  labels: 1,
  indexes: 1,
  settings: 1,
} as const;

/** The table a record type lives in. */
export type RecordType = keyof typeof RECORD_VERSIONS;
/** The `settings` key of the stored record versions. */
export const RECORD_VERSIONS_KEY = 'record-versions';

type Row = Record<string, unknown>;
/** Steps one row of a table from version `n - 1` to `n` (in place). */
type Migration = (row: Row) => void;

/** A stored verdict (an `EvaluatedCase`) made before versions gets an unknown (null) attributor version. */
function unversioned(verdict: unknown): void {
  if (verdict && typeof verdict === 'object' && !('attributor_version' in verdict))
    (verdict as Row).attributor_version = null;
}

/** `runs` 1 → 2: every stored verdict gets its attributor's version, unknown (null) for old ones. */
function runToV2(row: Row): void {
  const result = row.result as Row | null | undefined;
  if (row.kind === 'evaluation')
    for (const c of (result?.cases as unknown[] | undefined) ?? []) unversioned(c);
  else if (row.kind === 'report') row.attributorVersion ??= null;
  else if (row.kind === 'attribution' || row.kind === 'agent') unversioned(result);
}

/** Per table, the migration to each version from the one before (`[table][n]`: n - 1 → n). */
const MIGRATIONS: { [T in RecordType]?: Record<number, Migration> } = {
  runs: { 2: runToV2 },
};

/** The record versions a database holds (every type at 1 when it has none: written before versions). */
export async function storedRecordVersions(tx: Transaction): Promise<Record<RecordType, number>> {
  const row = (await tx.table('settings').get(RECORD_VERSIONS_KEY)) as { value?: unknown } | undefined;
  const stored = (row?.value ?? {}) as Partial<Record<RecordType, number>>;
  const out = {} as Record<RecordType, number>;
  for (const t of Object.keys(RECORD_VERSIONS) as RecordType[]) out[t] = stored[t] ?? 1;
  return out;
}

/**
 * Inside a database upgrade: steps every table whose stored record version is older than
 * `RECORD_VERSIONS` through its migrations, then stores the current versions.
 */
export async function migrateRecordVersions(tx: Transaction): Promise<void> {
  const from = await storedRecordVersions(tx);
  for (const t of Object.keys(RECORD_VERSIONS) as RecordType[]) {
    const steps: Migration[] = [];
    for (let v = from[t] + 1; v <= RECORD_VERSIONS[t]; v++) {
      const step = MIGRATIONS[t]?.[v];
      if (step) steps.push(step);
    }
    if (steps.length)
      await tx
        .table<Row, unknown>(t)
        .toCollection()
        .modify((row) => {
          for (const step of steps) step(row);
        });
  }
  await tx.table('settings').put({ key: RECORD_VERSIONS_KEY, value: { ...RECORD_VERSIONS } });
}
