#include "evidence/evidence.h"

#include <cstdio>
#include <optional>
#include <nlohmann/json.hpp>

namespace az::evidence {

using nlohmann::ordered_json;

namespace {

const char* kKernelKinds[] = {"matmul", "attention", "convolution", "elementwise", "norm", "reduce", "copy", "custom"};
const char* kEventTypes[] = {"compute", "start", "done", "blocking"};

ordered_json Canonical(const Evidence& e) {
  ordered_json j;
  j["program"] = e.program;
  j["compiler"] = e.compiler;
  j["num_devices"] = e.num_devices;
  j["mesh"] = e.mesh;
  j["peak_memory_bytes"] = e.peak_memory.value();
  j["parameter_bytes"] = e.parameter_bytes.value();
  if (e.memory != MemoryBreakdown{}) {
    j["memory"] = {{"parameters", e.memory.parameters.value()},
                   {"gradients", e.memory.gradients.value()},
                   {"optimizer_state", e.memory.optimizer_state.value()},
                   {"activations", e.memory.activations.value()},
                   {"communication", e.memory.communication.value()},
                   {"inputs", e.memory.inputs.value()},
                   {"constants", e.memory.constants.value()}};
  }
  ordered_json segments = ordered_json::array();
  for (const ComputeSegment& s : e.segments) {
    ordered_json segment = {{"name", s.name},
                            {"kind", kKernelKinds[static_cast<int>(s.kind)]},
                            {"flops", s.flops.value()},
                            {"bytes", s.bytes.value()}};
    if (!s.dims.empty()) segment["dims"] = s.dims;
    if (s.precision != pir::DType::kBF16) segment["precision"] = std::string(pir::DTypeName(s.precision));
    segments.push_back(std::move(segment));
  }
  j["segments"] = segments;
  ordered_json collectives = ordered_json::array();
  for (const CollectiveRecord& c : e.collectives) {
    ordered_json r = {{"name", c.name},
                      {"kind", std::string(cir::CollectiveKindName(c.kind))},
                      {"bytes", c.bytes.value()}};
    if (c.kind == cir::CollectiveKind::kCollectivePermute) {
      ordered_json pairs = ordered_json::array();
      for (auto [a, b] : c.pairs) pairs.push_back({a, b});
      r["pairs"] = pairs;
    } else {
      std::string iota = cir::FormatIotaReplicaGroups(c.groups);
      r["groups"] = iota.empty() ? cir::FormatReplicaGroups(c.groups) : iota;
    }
    collectives.push_back(r);
  }
  j["collectives"] = collectives;
  ordered_json schedule = ordered_json::array();
  for (const Event& ev : e.schedule) schedule.push_back({kEventTypes[static_cast<int>(ev.type)], ev.index});
  j["schedule"] = schedule;
  return j;
}

}  // namespace

Evidence Extract(const cir::Program& program, const std::string& compiler, bool hash) {
  Evidence e;
  e.program = program.name;
  e.compiler = compiler;
  e.num_devices = program.num_devices;
  e.mesh = program.mesh;
  std::vector<int> collective_of(program.instructions.size(), -1);
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const cir::Instruction& in = program.instructions[i];
    switch (in.kind) {
      case cir::InstrKind::kKernel:
        e.schedule.push_back({EventType::kCompute, static_cast<int>(e.segments.size())});
        e.segments.push_back({in.name, in.kernel, in.flops, in.bytes_read + in.bytes_written, in.dims, in.precision});
        break;
      case cir::InstrKind::kCollective:
      case cir::InstrKind::kCollectiveStart:
        collective_of[i] = static_cast<int>(e.collectives.size());
        e.schedule.push_back({in.kind == cir::InstrKind::kCollective ? EventType::kBlocking : EventType::kStart,
                              static_cast<int>(e.collectives.size())});
        e.collectives.push_back({in.name, in.collective, in.collective_bytes, in.groups, in.pairs});
        break;
      case cir::InstrKind::kCollectiveDone:
        e.schedule.push_back({EventType::kDone, collective_of[static_cast<size_t>(in.start)]});
        break;
    }
  }
  cir::ProgramSummary summary = cir::Summarize(program);
  e.peak_memory = summary.peak_memory;
  e.parameter_bytes = summary.parameter_bytes;
  auto at_peak = [&](cir::BufferKind kind) { return summary.peak_by_kind[static_cast<size_t>(kind)]; };
  e.memory.parameters = at_peak(cir::BufferKind::kParameter);
  e.memory.gradients = at_peak(cir::BufferKind::kGradient);
  e.memory.optimizer_state = at_peak(cir::BufferKind::kOptimizerState);
  e.memory.activations = at_peak(cir::BufferKind::kActivation);
  e.memory.communication = at_peak(cir::BufferKind::kCommunication);
  e.memory.inputs = at_peak(cir::BufferKind::kInput);
  e.memory.constants = at_peak(cir::BufferKind::kConstant);
  if (hash) e.hash = ContentHash(e);
  return e;
}

Status Validate(const Evidence& e) {
  auto fail = [](const std::string& path, const std::string& what) { return InvalidArgument(path + ": " + what); };
  std::vector<int> segment_runs(e.segments.size(), 0);
  // Per collective: 0 unseen, 1 started, 2 done or blocking.
  std::vector<int> state(e.collectives.size(), 0);
  for (size_t i = 0; i < e.schedule.size(); ++i) {
    const Event& ev = e.schedule[i];
    std::string path = "schedule[" + std::to_string(i) + "]";
    size_t limit = ev.type == EventType::kCompute ? e.segments.size() : e.collectives.size();
    if (ev.index < 0 || static_cast<size_t>(ev.index) >= limit) return fail(path, "index out of range");
    size_t index = static_cast<size_t>(ev.index);
    switch (ev.type) {
      case EventType::kCompute:
        if (segment_runs[index]++) return fail(path, "segment " + std::to_string(index) + " runs twice");
        break;
      case EventType::kBlocking:
      case EventType::kStart:
        if (state[index] != 0) return fail(path, "collective " + std::to_string(index) + " is issued twice");
        state[index] = ev.type == EventType::kStart ? 1 : 2;
        break;
      case EventType::kDone:
        if (state[index] != 1) {
          return fail(path, "done of collective " + std::to_string(index) + " without a pending start");
        }
        state[index] = 2;
        break;
    }
  }
  for (size_t s = 0; s < e.segments.size(); ++s) {
    if (!segment_runs[s]) return fail("segments[" + std::to_string(s) + "]", "never scheduled");
  }
  for (size_t c = 0; c < e.collectives.size(); ++c) {
    std::string path = "collectives[" + std::to_string(c) + "]";
    if (state[c] == 0) return fail(path, "never scheduled");
    if (state[c] == 1) return fail(path, "started but never done");
    const CollectiveRecord& r = e.collectives[c];
    for (const auto& group : r.groups.groups) {
      for (int id : group) {
        if (id < 0 || id >= e.num_devices) return fail(path + ".groups", "device " + std::to_string(id) + " out of range");
      }
    }
    for (auto [a, b] : r.pairs) {
      if (a < 0 || b < 0 || a >= e.num_devices || b >= e.num_devices) return fail(path + ".pairs", "device out of range");
    }
  }
  return Status::Ok();
}

std::string ContentHash(const Evidence& evidence) {
  std::string text = Canonical(evidence).dump();
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string HashOf(const Evidence& evidence) { return evidence.hash.empty() ? ContentHash(evidence) : evidence.hash; }

std::string ToJson(const Evidence& evidence) {
  ordered_json j = Canonical(evidence);
  j["hash"] = HashOf(evidence);
  return j.dump(1) + "\n";
}

StatusOr<Evidence> FromJson(std::string_view text, std::string_view file_name) {
  std::string where(file_name);
  ordered_json j = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return ParseError(where + ": not valid JSON");
  auto fail = [&](const std::string& path, const std::string& what) { return ParseError(where + ": " + path + ": " + what); };
  if (!j.is_object()) return fail("(root)", "evidence is a JSON object");
  Evidence e;
  auto str = [&](const ordered_json& o, const char* key, const std::string& path, std::string* out) -> Status {
    if (!o.contains(key) || !o[key].is_string()) return fail(path + "." + key, "expected a string");
    *out = o[key].get<std::string>();
    return Status::Ok();
  };
  auto num = [&](const ordered_json& o, const char* key, const std::string& path, int64_t* out) -> Status {
    if (!o.contains(key) || !o[key].is_number_integer()) return fail(path + "." + key, "expected an integer");
    *out = o[key].get<int64_t>();
    if (*out < 0) return fail(path + "." + key, "must be >= 0");
    return Status::Ok();
  };
  AZ_RETURN_IF_ERROR(str(j, "program", "", &e.program));
  AZ_RETURN_IF_ERROR(str(j, "compiler", "", &e.compiler));
  AZ_RETURN_IF_ERROR(str(j, "mesh", "", &e.mesh));
  AZ_RETURN_IF_ERROR(num(j, "num_devices", "", &e.num_devices));
  if (e.num_devices < 1 || e.num_devices > (1 << 20)) return fail("num_devices", "out of range");
  int64_t peak = 0, params = 0;
  AZ_RETURN_IF_ERROR(num(j, "peak_memory_bytes", "", &peak));
  AZ_RETURN_IF_ERROR(num(j, "parameter_bytes", "", &params));
  e.peak_memory = Bytes(peak);
  e.parameter_bytes = Bytes(params);
  if (j.contains("memory")) {
    const ordered_json& m = j["memory"];
    if (!m.is_object()) return fail("memory", "expected an object");
    const std::pair<const char*, Bytes*> terms[] = {
        {"parameters", &e.memory.parameters},   {"gradients", &e.memory.gradients},
        {"optimizer_state", &e.memory.optimizer_state}, {"activations", &e.memory.activations},
        {"communication", &e.memory.communication},     {"inputs", &e.memory.inputs},
        {"constants", &e.memory.constants}};
    for (const auto& [key, out] : terms) {
      int64_t bytes = 0;
      AZ_RETURN_IF_ERROR(num(m, key, "memory", &bytes));
      *out = Bytes(bytes);
    }
  }
  if (!j.contains("segments") || !j["segments"].is_array()) return fail("segments", "expected an array");
  for (size_t i = 0; i < j["segments"].size(); ++i) {
    const auto& s = j["segments"][i];
    std::string path = "segments[" + std::to_string(i) + "]";
    if (!s.is_object()) return fail(path, "expected an object");
    ComputeSegment seg;
    std::string kind;
    AZ_RETURN_IF_ERROR(str(s, "name", path, &seg.name));
    AZ_RETURN_IF_ERROR(str(s, "kind", path, &kind));
    int k = -1;
    for (int c = 0; c < 8; ++c) {
      if (kind == kKernelKinds[c]) k = c;
    }
    if (k < 0) return fail(path + ".kind", "unknown kernel kind '" + kind + "'");
    seg.kind = static_cast<cir::KernelKind>(k);
    int64_t flops = 0, bytes = 0;
    AZ_RETURN_IF_ERROR(num(s, "flops", path, &flops));
    AZ_RETURN_IF_ERROR(num(s, "bytes", path, &bytes));
    seg.flops = Flops(flops);
    seg.bytes = Bytes(bytes);
    if (s.contains("dims")) {
      const auto& dims = s["dims"];
      if (!dims.is_array() || dims.size() > cir::kMaxKernelDims) {
        return fail(path + ".dims", "expected an array of at most " + std::to_string(cir::kMaxKernelDims) + " integers");
      }
      for (const auto& d : dims) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0 || d.get<int64_t>() > cir::kMaxKernelDim) {
          return fail(path + ".dims", "expected integers in [0, 2^40]");
        }
        seg.dims.push_back(d.get<int64_t>());
      }
    }
    if (s.contains("precision")) {
      std::string precision;
      AZ_RETURN_IF_ERROR(str(s, "precision", path, &precision));
      std::optional<pir::DType> dtype = pir::ParseDType(precision);
      if (!dtype) return fail(path + ".precision", "unknown element type '" + precision + "'");
      seg.precision = *dtype;
    }
    e.segments.push_back(std::move(seg));
  }
  if (!j.contains("collectives") || !j["collectives"].is_array()) return fail("collectives", "expected an array");
  for (size_t i = 0; i < j["collectives"].size(); ++i) {
    const auto& c = j["collectives"][i];
    std::string path = "collectives[" + std::to_string(i) + "]";
    if (!c.is_object()) return fail(path, "expected an object");
    CollectiveRecord r;
    std::string kind;
    AZ_RETURN_IF_ERROR(str(c, "name", path, &r.name));
    AZ_RETURN_IF_ERROR(str(c, "kind", path, &kind));
    auto k = cir::ParseCollectiveKind(kind);
    if (!k.ok()) return fail(path + ".kind", k.status().message());
    r.kind = *k;
    int64_t bytes = 0;
    AZ_RETURN_IF_ERROR(num(c, "bytes", path, &bytes));
    r.bytes = Bytes(bytes);
    if (r.kind == cir::CollectiveKind::kCollectivePermute) {
      if (!c.contains("pairs") || !c["pairs"].is_array()) return fail(path + ".pairs", "expected an array");
      for (const auto& p : c["pairs"]) {
        if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number_integer()) {
          return fail(path + ".pairs", "expected [source, target] pairs");
        }
        int a = p[0].get<int>(), b = p[1].get<int>();
        if (a < 0 || b < 0 || a >= e.num_devices || b >= e.num_devices) return fail(path + ".pairs", "device out of range");
        r.pairs.push_back({a, b});
      }
    } else {
      std::string groups;
      AZ_RETURN_IF_ERROR(str(c, "groups", path, &groups));
      auto g = cir::ParseReplicaGroups(groups, static_cast<int>(e.num_devices), /*allow_partial=*/true);
      if (!g.ok()) return fail(path + ".groups", g.status().message());
      r.groups = *g;
    }
    e.collectives.push_back(std::move(r));
  }
  if (!j.contains("schedule") || !j["schedule"].is_array()) return fail("schedule", "expected an array");
  for (size_t i = 0; i < j["schedule"].size(); ++i) {
    const auto& ev = j["schedule"][i];
    std::string path = "schedule[" + std::to_string(i) + "]";
    if (!ev.is_array() || ev.size() != 2 || !ev[0].is_string() || !ev[1].is_number_integer()) {
      return fail(path, "expected [type, index]");
    }
    std::string type = ev[0].get<std::string>();
    int t = -1;
    for (int c = 0; c < 4; ++c) {
      if (type == kEventTypes[c]) t = c;
    }
    if (t < 0) return fail(path, "unknown event type '" + type + "'");
    int index = ev[1].get<int>();
    size_t limit = t == 0 ? e.segments.size() : e.collectives.size();
    if (index < 0 || static_cast<size_t>(index) >= limit) return fail(path, "index out of range");
    e.schedule.push_back({static_cast<EventType>(t), index});
  }
  std::string hash;
  AZ_RETURN_IF_ERROR(str(j, "hash", "", &hash));
  e.hash = ContentHash(e);
  if (hash != e.hash) return fail("hash", "does not match the content (" + e.hash + ")");
  Status valid = Validate(e);
  if (!valid.ok()) return ParseError(where + ": " + valid.message());
  return e;
}

}  // namespace az::evidence
