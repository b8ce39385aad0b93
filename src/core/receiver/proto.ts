/**
 * The OTLP trace messages a receiver reads and writes, as protobufjs types. The field
 * numbers and wire types are those of opentelemetry-proto v1 (`collector/trace/v1`,
 * `trace/v1`, `common/v1`, `resource/v1`) and of `google.rpc.Status`; fields a receiver
 * does not need (profiles' string-table indexes, entity refs) are left out, so the
 * decoder skips them as unknown fields, as protobuf decoders must.
 */
import protobuf from 'protobufjs';

const SCHEMA = `
syntax = "proto3";
package otlp;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource {
  repeated KeyValue attributes = 1;
  uint32 dropped_attributes_count = 2;
}

message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans {
  Resource resource = 1;
  repeated ScopeSpans scope_spans = 2;
  string schema_url = 3;
}
message ScopeSpans {
  InstrumentationScope scope = 1;
  repeated Span spans = 2;
  string schema_url = 3;
}
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  bytes parent_span_id = 4;
  string name = 5;
  int32 kind = 6;
  fixed64 start_time_unix_nano = 7;
  fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9;
  uint32 dropped_attributes_count = 10;
  repeated Event events = 11;
  uint32 dropped_events_count = 12;
  repeated Link links = 13;
  uint32 dropped_links_count = 14;
  Status status = 15;
  fixed32 flags = 16;
}
message Event {
  fixed64 time_unix_nano = 1;
  string name = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Link {
  bytes trace_id = 1;
  bytes span_id = 2;
  string trace_state = 3;
  repeated KeyValue attributes = 4;
  uint32 dropped_attributes_count = 5;
  fixed32 flags = 6;
}
message Status {
  string message = 2;
  int32 code = 3;
}

message ExportTraceServiceResponse { ExportTracePartialSuccess partial_success = 1; }
message ExportTracePartialSuccess {
  int64 rejected_spans = 1;
  string error_message = 2;
}

// google.rpc.Status, the body of every 4xx / 5xx reply (details are not sent).
message RpcStatus {
  int32 code = 1;
  string message = 2;
}
`;

let types: { request: protobuf.Type; response: protobuf.Type; status: protobuf.Type } | null = null;

/** The message types, parsed once on first use. */
export function otlpTypes() {
  if (!types) {
    const { root } = protobuf.parse(SCHEMA, { keepCase: false });
    types = {
      request: root.lookupType('otlp.ExportTraceServiceRequest'),
      response: root.lookupType('otlp.ExportTraceServiceResponse'),
      status: root.lookupType('otlp.RpcStatus'),
    };
  }
  return types;
}
