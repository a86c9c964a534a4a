// One simulated step as a Chrome Trace Event Format document: the JSON that
// Perfetto (ui.perfetto.dev) and chrome://tracing open.
//
// Layout of the document (a pure function of the SimResult; no clock, no
// files; key order fixed by nlohmann::ordered_json, so the text is stable):
//
//   {"traceEvents": [
//      {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": <title>}},
//      {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "compute"}},
//      {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "communication"}},
//      (thread_sort_index metadata keeps compute above communication)
//      {"ph": "X", "pid": 1, "tid": 1, "name": "fusion.3", "cat": "matmul",
//       "ts": 12.5, "dur": 3.25, "args": {"flops": ..., "bytes": ...}},
//      {"ph": "X", "pid": 1, "tid": 2, "name": "all-to-all.7", "cat": "all-to-all",
//       "ts": ..., "dur": ..., "args": {"bytes": ..., "groups": "...",
//                                       "algorithm": "...", "exposed_us": ...}},
//      {"ph": "C", "name": "exposed communication", "pid": 1, "ts": ...,
//       "args": {"us": <cumulative>}}, ...],
//    "displayTimeUnit": "ns",
//    "otherData": {"title", "latency_us", "compute_us", "communication_us",
//                  "exposed_communication_us", "kernels", "collectives"}}
//
// Units: the format's ts and dur are microseconds; they are written as doubles
// (ts = start x 1e6, dur = (start + duration) x 1e6 - ts, so that a slice
// starting where the previous one ended has ts equal to that end), and
// sub-microsecond kernels keep their length. One "X" event per slice, in the
// simulator's order. The two engines are serial (simulator.h), so the events
// of one track never overlap and the latest end is the step latency.
//
// The optional counter is the compute engine's cumulative wait for
// communication: 0 at the start, and at the end of every collective the
// compute engine waited for, the running total (in us). A collective's wait
// ends when it does (the done, or the blocking collective, returns then), so
// the staircase rises exactly where the exposure is paid; its last value is
// the step's exposed communication.
//
// A SimResult simulated without a timeline has no slices: the document then
// holds the metadata, the summary and no events.
#pragma once

#include <string>

#include "price/simulator.h"

namespace az::emit {

struct TraceOptions {
  // The process name Perfetto shows: the program and the topology, say
  // "wan2.1-t2v-1.3b sp=8 on v5e:2x4".
  std::string title = "aoizora step";
  // The cumulative exposed-communication counter track.
  bool exposed_counter = true;
};

// Track (thread) ids of the two engines.
inline constexpr int kTracePid = 1;
inline constexpr int kComputeTid = 1;
inline constexpr int kCommunicationTid = 2;

std::string StepTrace(const price::SimResult& result, const TraceOptions& options);

}  // namespace az::emit
