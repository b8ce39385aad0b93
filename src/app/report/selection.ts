/**
 * The Report's selection as the URL keeps it (`#/report?systems=a,b&traces=id,id&labels=none`):
 * which systems ('' = all), which of their traces ('' = all), which label source. Pure: the
 * view reads the chosen traces from it and writes a toggled selection back to the URL.
 */

/** A trace as the selection sees it. */
export interface SelectableTrace {
  id: string;
  system: string | null;
}

/** The selection in the URL's terms: empty lists mean "all". */
export interface ReportSelection {
  systems: string[];
  traces: string[];
  labels: string;
}

/** A trace's system as the selection names it (`unknown` when the trace names none, as the worker reads it). */
export const systemName = (t: SelectableTrace): string => t.system ?? 'unknown';

const list = (s: string) => s.split(',').filter(Boolean);

/** Written for an emptied list (nothing ticked), which must not read as "all". */
const NONE = '-';

/** The ticked names of `all` as the URL writes them: none named when all are ticked, `-` when none is. */
function written(ticked: ReadonlySet<string>, all: readonly string[]): string[] {
  if (all.every((x) => ticked.has(x))) return [];
  const kept = all.filter((x) => ticked.has(x));
  return kept.length ? kept : [NONE];
}

/** The selection of the route's parameters. */
export function readSelection(route: { systems: string; traces: string; labels: string }): ReportSelection {
  return { systems: list(route.systems), traces: list(route.traces), labels: route.labels };
}

/** Whether a system is chosen (every system is when none is named). */
export function systemChosen(sel: ReportSelection, system: string): boolean {
  return sel.systems.length === 0 || sel.systems.includes(system);
}

/** The chosen traces: of the chosen systems, and among the named traces when some are named. */
export function chosenTraces<T extends SelectableTrace>(sel: ReportSelection, traces: readonly T[]): T[] {
  return traces.filter(
    (t) => systemChosen(sel, systemName(t)) && (sel.traces.length === 0 || sel.traces.includes(t.id)),
  );
}

/** The selection with one system ticked or unticked (`all`: every system present; all ticked is written as none named). */
export function toggleSystem(
  sel: ReportSelection,
  system: string,
  on: boolean,
  all: readonly string[],
): ReportSelection {
  const now = new Set(sel.systems.length ? sel.systems : all);
  if (on) now.add(system);
  else now.delete(system);
  return { ...sel, systems: written(now, all) };
}

/** The selection with one trace ticked or unticked among `traces` (every trace listed, whatever its system). */
export function toggleTrace(
  sel: ReportSelection,
  id: string,
  on: boolean,
  traces: readonly SelectableTrace[],
): ReportSelection {
  const ids = traces.map((t) => t.id);
  const now = new Set(sel.traces.length ? sel.traces : ids);
  if (on) now.add(id);
  else now.delete(id);
  return { ...sel, traces: written(now, ids) };
}
