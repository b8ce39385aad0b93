/**
 * The OTLP/HTTP trace receiver's pure part (`memtrace serve` does the HTTP and the files):
 * request bodies decoded and checked, split by trace id, the replies of the OTLP spec.
 */

/** Splitting a request by trace, and the description a live list shows of each trace. */
export {
  describeLine,
  mergeReceived,
  RECEIVED_PAGE_MAX,
  type ReceivedList,
  type ReceivedTrace,
  type ReceivedTraceFile,
  splitByTrace,
} from './group.ts';
/** The OTLP protobuf message types (protobufjs), the schema the decoder reads by. */
export { otlpTypes } from './proto.ts';
/** A body → each trace's line (protobuf's fast path, else the checked tree), and what was refused. */
export { receiveTraceRequest } from './receive.ts';
/** The encodings, the OTLP/JSON request shape, decoding and id checks. */
export {
  decodeTraceRequest,
  encodingOf,
  idHex,
  type OtlpEncoding,
  type OtlpTraceRequest,
} from './request.ts';
/** Reply bodies: the export response (partial success) and the failure status. */
export { contentTypeOf, exportResponse, statusBody } from './response.ts';
/** One trace's part of a request as its file's line; the protobuf fast path (null: the tree path answers). */
export { type LinePart, wireLines } from './wire-json.ts';
