/**
 * The error report view's state: the latest stored report (a `runs` row of kind `report`,
 * so it survives reloads), building one in the engine worker (progress, cancel), the
 * imported attribution files it can use instead of evidence-flow, the narrative with the
 * configured model (the model stays in this page; the worker calls it through a port),
 * and exports of the same files as the CLI.
 */
import * as Comlink from 'comlink';
import { getContext, setContext } from 'svelte';
import type {
  ImportedAttributions,
  ReportLabels,
  ReportProgress,
  ReportSource,
  StoredReport,
} from '../../../workers/api.ts';
import { modelInfo, modelPort } from '../attribution/model-port.ts';
import type { LlmSettings } from '../llm/settings.svelte.ts';
import type { Services } from '../state/services.ts';

const REPORTS = '*report';
const IMPORTED = '*imported';
const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export type ExportFormat = 'md' | 'html' | 'json' | 'paper';

/** What a cancelled build says: no report of it is shown; the verdicts it made stay for the next one. */
function cancelledNotice(p: ReportProgress | null): string {
  const kept = p?.attributed
    ? ` The ${p.attributed} verdict(s) it made are kept: the next report reuses them.`
    : '';
  return `Cancelled after ${p?.done ?? 0} of ${p?.total ?? 0} cases; no report of it is shown, the previous report is kept.${kept}`;
}

class ReportState {
  #row = $state.raw<StoredReport | null>(null);
  #imports = $state.raw<ImportedAttributions[]>([]);
  #progress = $state.raw<ReportProgress | null>(null);
  #running = $state(false);
  /** Aborts the report being built (its signal went to the worker with it). */
  #abort: AbortController | null = null;
  #narrating = $state<{ done: number; total: number } | null>(null);
  #error = $state<string | null>(null);
  #notice = $state<string | null>(null);
  /** `evidence`, or `imported:<run id>`. */
  source = $state('evidence');

  constructor(private readonly services: Services) {}

  get row() {
    return this.#row;
  }
  get report() {
    return this.#row?.result ?? null;
  }
  get imports() {
    return this.#imports;
  }
  get progress() {
    return this.#progress;
  }
  get running() {
    return this.#running;
  }
  get narrating() {
    return this.#narrating;
  }
  get error() {
    return this.#error;
  }
  get notice() {
    return this.#notice;
  }

  async load(): Promise<void> {
    if (this.#running) return;
    try {
      const db = this.services.db;
      const reports = (await db.runs.where('traceId').equals(REPORTS).toArray()) as StoredReport[];
      this.#row = reports.sort((a, b) => (b.id ?? 0) - (a.id ?? 0))[0] ?? null;
      this.#imports = (
        (await db.runs.where('traceId').equals(IMPORTED).toArray()) as ImportedAttributions[]
      ).sort((a, b) => (b.id ?? 0) - (a.id ?? 0));
    } catch (e) {
      this.#error = message(e);
    }
  }

  #sourceOf(): ReportSource {
    return this.source.startsWith('imported:')
      ? { kind: 'imported', runId: Number(this.source.slice(9)) }
      : { kind: 'evidence' };
  }

  /**
   * Builds the report over this selection in the engine worker and keeps it (the engine reuses
   * the verdicts it holds and attributes the rest). A cancelled build shows no report of its own.
   */
  async start(selection: { traceIds: string[]; systems: string[]; labels: ReportLabels }): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    this.#error = null;
    this.#notice = null;
    this.#progress = null;
    const abort = new AbortController();
    this.#abort = abort;
    try {
      const row = await this.services.analysis.buildReport(
        {
          traceIds: [...selection.traceIds],
          systems: [...selection.systems],
          labels: selection.labels,
          source: this.#sourceOf(),
        },
        Comlink.proxy((p: ReportProgress) => {
          this.#progress = p;
        }),
        abort.signal,
      );
      if (row) this.#row = row;
      else this.#notice = cancelledNotice(this.#progress);
    } catch (e) {
      this.#error = message(e);
    } finally {
      this.#running = false;
      this.#abort = null;
    }
  }

  /** Stops the report being built after its current case; no report is stored (verdicts made so far are kept). */
  cancel(): void {
    this.#abort?.abort();
  }

  /** Reads an attribution file (the paper's results, memtrace attribute --json, bench results) into a stored run. */
  async importFile(file: File): Promise<void> {
    this.#error = null;
    try {
      const row = await this.services.analysis.importAttributions(file, file.name);
      this.#imports = [row, ...this.#imports];
      this.source = `imported:${row.id}`;
      this.#notice = `${file.name}: ${row.records.length} record(s) matched stored traces${row.unmatched ? `, ${row.unmatched} did not` : ''}.`;
    } catch (e) {
      this.#error = message(e);
    }
  }

  /** Writes the narrative of the shown report with the active model profile. */
  async narrate(settings: LlmSettings): Promise<void> {
    const row = this.#row;
    if (!row?.id || this.#narrating) return;
    this.#error = null;
    this.#narrating = { done: 0, total: Math.ceil(row.result.cases / 4) };
    try {
      const model = settings.chatModel(undefined, 'report narrative');
      this.#row = await this.services.analysis.narrateReport(
        row.id,
        modelInfo(model),
        Comlink.proxy(modelPort(model)),
        Comlink.proxy((done: number, total: number) => {
          this.#narrating = { done, total };
        }),
      );
    } catch (e) {
      this.#error = message(e);
    } finally {
      this.#narrating = null;
    }
  }

  /** The report as a file: Markdown, HTML, JSON, or the paper's error_analysis_report.json. */
  async file(format: ExportFormat): Promise<{ name: string; type: string; text: string } | null> {
    const r = this.report;
    if (!r) return null;
    // The writers (and the narrative's schema, with full zod) load with the first export, not with the page.
    const { errorAnalysisReportJson, reportHtml, reportMarkdown } = await import(
      '../../core/report/index.ts'
    );
    if (format === 'md') return { name: 'error-report.md', type: 'text/markdown', text: reportMarkdown(r) };
    if (format === 'html') return { name: 'error-report.html', type: 'text/html', text: reportHtml(r) };
    if (format === 'json')
      return { name: 'error-report.json', type: 'application/json', text: JSON.stringify(r, null, 2) };
    if (!r.narrative) return null;
    return {
      name: 'error_analysis_report.json',
      type: 'application/json',
      text: JSON.stringify(errorAnalysisReportJson(r.narrative.text), null, 4),
    };
  }
}

const KEY = Symbol('report');
export function setupReport(services: Services): ReportState {
  return setContext(KEY, new ReportState(services));
}
export function useReport(): ReportState {
  return getContext<ReportState>(KEY);
}
