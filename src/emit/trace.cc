// StepTrace: metadata, one complete event per slice, the counter, the summary;
// written one event per line so that a trace diffs line by line.
#include "emit/trace.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace az::emit {
namespace {

using Json = nlohmann::ordered_json;

constexpr double kMicrosPerSecond = 1e6;

double Micros(double seconds) { return seconds * kMicrosPerSecond; }

Json Metadata(const std::string& name, int tid, Json args) {
  Json event;
  event["ph"] = "M";
  event["name"] = name;
  event["pid"] = kTracePid;
  if (tid >= 0) event["tid"] = tid;
  event["args"] = std::move(args);
  return event;
}

Json Track(int tid, const std::string& name) { return Metadata("thread_name", tid, Json{{"name", name}}); }

Json Complete(const price::Slice& slice) {
  bool compute = slice.engine == price::Slice::kCompute;
  Json event;
  event["ph"] = "X";
  event["pid"] = kTracePid;
  event["tid"] = compute ? kComputeTid : kCommunicationTid;
  event["name"] = slice.name;
  event["cat"] = slice.kind;
  // The end scaled as one number, the duration the difference: the simulator
  // starts a slice exactly where the previous one on its engine ended (in
  // seconds), and scaling start and duration separately could round the next
  // start an ulp before this end, which trace viewers read as nesting.
  double start = Micros(slice.start.value()), end = Micros(slice.start.value() + slice.duration.value());
  event["ts"] = start;
  event["dur"] = end - start;
  Json args;
  if (compute) {
    args["flops"] = slice.flops.value();
    args["bytes"] = slice.bytes.value();
  } else {
    args["bytes"] = slice.bytes.value();
    args["groups"] = slice.groups;
    args["algorithm"] = slice.algorithm;
    args["exposed_us"] = Micros(slice.exposed.value());
  }
  event["args"] = std::move(args);
  return event;
}

Json Counter(double ts, double exposed_us) {
  Json event;
  event["ph"] = "C";
  event["name"] = "exposed communication";
  event["pid"] = kTracePid;
  event["ts"] = ts;
  event["args"] = Json{{"us", exposed_us}};
  return event;
}

}  // namespace

std::string StepTrace(const price::SimResult& result, const TraceOptions& options) {
  std::vector<Json> events;
  events.push_back(Metadata("process_name", -1, Json{{"name", options.title}}));
  events.push_back(Track(kComputeTid, "compute"));
  events.push_back(Track(kCommunicationTid, "communication"));
  // Perfetto orders tracks by this index, not by first appearance.
  events.push_back(Metadata("thread_sort_index", kComputeTid, Json{{"sort_index", 0}}));
  events.push_back(Metadata("thread_sort_index", kCommunicationTid, Json{{"sort_index", 1}}));
  for (const price::Slice& slice : result.slices) events.push_back(Complete(slice));
  if (options.exposed_counter && !result.slices.empty()) {
    // Collectives run one at a time in issue order, so their ends, hence the
    // counter's timestamps, never decrease.
    double total = 0;
    events.push_back(Counter(0, 0));
    for (const price::Slice& slice : result.slices) {
      if (slice.engine != price::Slice::kCommunication || slice.exposed.value() <= 0) continue;
      total += Micros(slice.exposed.value());
      events.push_back(Counter(Micros(slice.start.value() + slice.duration.value()), total));
    }
  }

  Json summary;
  summary["title"] = options.title;
  summary["latency_us"] = Micros(result.latency.value());
  summary["compute_us"] = Micros(result.compute.value());
  summary["communication_us"] = Micros(result.communication.value());
  summary["exposed_communication_us"] = Micros(result.exposed_communication.value());
  summary["kernels"] = result.kernels;
  summary["collectives"] = result.collectives;

  std::string out = "{\"traceEvents\": [\n";
  for (size_t i = 0; i < events.size(); ++i) {
    out += events[i].dump();
    out += i + 1 < events.size() ? ",\n" : "\n";
  }
  out += "],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": " + summary.dump() + "}\n";
  return out;
}

}  // namespace az::emit
