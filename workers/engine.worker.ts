/** The engine worker: hosts EngineService (import, open traces, analyses, ranked retrieval) behind comlink. */
import * as Comlink from 'comlink';
import { type LaneLayoutOptions, laneLayoutTransferables } from '../src/core/layout/index.ts';
import { openDb } from '../src/db/schema.ts';
import './abort-transfer.ts';
import type { EngineApi, LaneLayoutProgress } from './api.ts';
import { EngineService } from './engine.ts';
import { buildStamp } from './judge-fits.ts';
import { idbIndexStore } from './retrieval-store.ts';

// The bundle's hashed name changes with its code: judge fits stored under it are this code's.
const service = new EngineService(openDb(), { store: idbIndexStore(), build: buildStamp(import.meta.url) });
// Lane layouts hold large typed arrays: transfer them instead of copying.
const api = {
  importFiles: service.importFiles.bind(service),
  restoreFileLabels: service.restoreFileLabels.bind(service),
  setWordVectors: service.setWordVectors.bind(service),
  loadMatcher: service.loadMatcher.bind(service),
  prepareAttribution: service.prepareAttribution.bind(service),
  caseOverview: service.caseOverview.bind(service),
  opDetail: service.opDetail.bind(service),
  describeOps: service.describeOps.bind(service),
  findOps: service.findOps.bind(service),
  varDetail: service.varDetail.bind(service),
  diffVersions: service.diffVersions.bind(service),
  search: service.search.bind(service),
  laneMarks: service.laneMarks.bind(service),
  neighbourhood: service.neighbourhood.bind(service),
  forget: service.forget.bind(service),
  attributeCase: service.attributeCase.bind(service),
  caseVerdict: service.caseVerdict.bind(service),
  askModel: service.askModel.bind(service),
  saveLabel: service.saveLabel.bind(service),
  saveAdjudication: service.saveAdjudication.bind(service),
  deleteLabel: service.deleteLabel.bind(service),
  restoreLabel: service.restoreLabel.bind(service),
  storeImportedLabels: service.storeImportedLabels.bind(service),
  deleteTrace: service.deleteTrace.bind(service),
  addAgentRun: service.addAgentRun.bind(service),
  reopenAgentRun: service.reopenAgentRun.bind(service),
  setSetting: service.setSetting.bind(service),
  llmCacheGet: service.llmCacheGet.bind(service),
  llmCacheSet: service.llmCacheSet.bind(service),
  llmCacheSize: service.llmCacheSize.bind(service),
  llmCacheClear: service.llmCacheClear.bind(service),
  connectSystems: service.connectSystems.bind(service),
  evaluate: service.evaluate.bind(service),
  runEvaluation: service.runEvaluation.bind(service),
  runAgent: service.runAgent.bind(service),
  buildReport: service.buildReport.bind(service),
  importAttributions: service.importAttributions.bind(service),
  narrateReport: service.narrateReport.bind(service),
  compareTraces: service.compareTraces.bind(service),
  compareMemory: service.compareMemory.bind(service),
  valuePreview: service.valuePreview.bind(service),
  connectEmbedder: service.connectEmbedder.bind(service),
  buildIndex: service.buildIndex.bind(service),
  rankedSearch: service.rankedSearch.bind(service),
  // Copied, not transferred: the engine keeps the table for the next visit.
  spanTable: service.spanTable.bind(service),
  casesThroughOp: service.casesThroughOp.bind(service),
  async laneLayout(
    traceId: string,
    options?: LaneLayoutOptions,
    onProgress?: (p: LaneLayoutProgress) => void,
    signal?: AbortSignal,
  ) {
    const layout = await service.laneLayout(traceId, options, onProgress, signal);
    return Comlink.transfer(layout, laneLayoutTransferables(layout));
  },
} satisfies EngineApi;
Comlink.expose(api);
