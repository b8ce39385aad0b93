/** The analysis worker: hosts AnalysisService behind comlink. */
import * as Comlink from 'comlink';
import { openDb } from '../src/db/schema.ts';
import { AnalysisService } from './analysis-service.ts';

const service = new AnalysisService(openDb());
// Graph columns hold large typed arrays: transfer them instead of copying.
const api = {
  caseContext: service.caseContext.bind(service),
  opDetail: service.opDetail.bind(service),
  varDetail: service.varDetail.bind(service),
  diffVersions: service.diffVersions.bind(service),
  search: service.search.bind(service),
  neighbourhood: service.neighbourhood.bind(service),
  forget: service.forget.bind(service),
  async columns(traceId: string) {
    const c = await service.columns(traceId);
    return Comlink.transfer(c, [
      c.varLineage.buffer,
      c.varVersion.buffer,
      c.varRank.buffer,
      c.varCategory.buffer,
      c.varSentinel.buffer,
      c.opRank.buffer,
      c.opCategory.buffer,
      c.edgeOp.buffer,
      c.edgeSrc.buffer,
      c.edgeDst.buffer,
    ]);
  },
};
Comlink.expose(api);
