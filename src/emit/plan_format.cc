// Quoting and formatting shared by the plan emitters (plan_format.h says what
// each guarantees).
#include "emit/plan_format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "hw/topology.h"
#include "support/status.h"

namespace az::emit {
namespace {

void AppendHex(std::string& out, const char* prefix, uint32_t value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%s%0*x", prefix, digits, static_cast<unsigned>(value));
  out += buf;
}

// Length of the valid UTF-8 sequence starting at text[i] and its code point;
// 0 when the bytes there are not one (overlong forms, surrogates and values
// past U+10FFFF count as invalid, as in Python's decoder).
int DecodeUtf8(std::string_view text, size_t i, uint32_t* code_point) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  uint8_t lead = byte(i);
  int length = 0;
  uint32_t value = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    value = lead & 0x1fu;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    value = lead & 0x0fu;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    value = lead & 0x07u;
  } else {
    return 0;
  }
  if (i + static_cast<size_t>(length) > text.size()) return 0;
  for (int k = 1; k < length; ++k) {
    uint8_t continuation = byte(i + static_cast<size_t>(k));
    if ((continuation & 0xc0) != 0x80) return 0;
    value = (value << 6) | (continuation & 0x3fu);
  }
  if ((length == 3 && value < 0x800) || (length == 4 && (value < 0x10000 || value > 0x10ffff))) return 0;
  if (value >= 0xd800 && value <= 0xdfff) return 0;
  *code_point = value;
  return length;
}

// Three significant digits of a value in [0, 1000) (and beyond, unrounded).
std::string ThreeDigits(double value, const char* unit) {
  int decimals = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f %s", decimals, value, unit);
  return buf;
}

}  // namespace

std::string PyText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto byte = static_cast<uint8_t>(text[i]);
    if (byte < 0x80) {
      switch (byte) {
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          if (byte < 0x20 || byte == 0x7f) {
            AppendHex(out, "\\x", byte, 2);
          } else {
            out += static_cast<char>(byte);
          }
      }
      ++i;
      continue;
    }
    uint32_t code_point = 0;
    int length = DecodeUtf8(text, i, &code_point);
    if (length == 0) {
      AppendHex(out, "\\udc", byte, 2);  // surrogateescape of the stray byte
      ++i;
      continue;
    }
    if (code_point <= 0xffff) {
      AppendHex(out, "\\u", code_point, 4);
    } else {
      AppendHex(out, "\\U", code_point, 8);
    }
    i += static_cast<size_t>(length);
  }
  return out;
}

std::string PyString(std::string_view text) { return "\"" + PyText(text) + "\""; }

std::string PyFloat(double value) {
  if (std::isnan(value)) return "float(\"nan\")";
  if (std::isinf(value)) return value > 0 ? "float(\"inf\")" : "float(\"-inf\")";
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  AZ_CHECK(result.ec == std::errc());
  std::string out(buf, result.ptr);
  // "2" would read back as an int; keep every value a float.
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

std::string XmlText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 admits no control characters but tab, newline, return.
        if (static_cast<uint8_t>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string MarkdownCell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string ShellWord(std::string_view text) {
  auto safe = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
  };
  bool bare = !text.empty();
  for (char c : text) bare = bare && safe(c);
  if (bare) return std::string(text);
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  double magnitude = std::fabs(seconds);
  std::string sign = seconds < 0 ? "-" : "";
  if (magnitude == 0) return "0 s";
  if (magnitude >= 1) return sign + ThreeDigits(magnitude, "s");
  if (magnitude >= 1e-3) return sign + ThreeDigits(magnitude * 1e3, "ms");
  if (magnitude >= 1e-6) return sign + ThreeDigits(magnitude * 1e6, "us");
  return sign + ThreeDigits(magnitude * 1e9, "ns");
}

std::string FormatMs(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f ms", seconds * 1e3);
  return buf;
}

std::string FormatBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  std::string sign = bytes < 0 ? "-" : "";
  double value = std::fabs(static_cast<double>(bytes));
  if (value < 1024) return sign + std::to_string(static_cast<int64_t>(value)) + " B";
  int unit = -1;
  while (value >= 1024 && unit + 1 < static_cast<int>(std::size(kUnits))) {
    value /= 1024;
    ++unit;
  }
  return sign + ThreeDigits(value, kUnits[unit]);
}

std::string FormatRatio(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2fx", ratio);
  return buf;
}

std::string FormatPercent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f%%", fraction * 100);
  return buf;
}

double Speedup(double baseline_latency_s, double best_latency_s) {
  bool valid = std::isfinite(baseline_latency_s) && std::isfinite(best_latency_s) && baseline_latency_s > 0 &&
               best_latency_s > 0;
  return valid ? baseline_latency_s / best_latency_s : std::nan("");
}

std::string MeshText(const search::Configuration& config) {
  if (config.mesh.empty()) return "-";
  std::string out;
  for (const auto& [axis, size] : config.mesh) {
    if (!out.empty()) out += ',';
    out += axis + "=" + std::to_string(size);
  }
  return out;
}

int64_t MeshDevices(const search::Configuration& config) {
  int64_t devices = 1;
  for (const auto& axis : config.mesh) devices *= axis.second;
  return devices;
}

std::vector<int64_t> MeshPosition(const search::Configuration& config, int64_t rank) {
  std::vector<int64_t> position(config.mesh.size(), 0);
  for (size_t k = config.mesh.size(); k-- > 0;) {
    int64_t size = config.mesh[k].second;
    AZ_CHECK_MSG(size > 0, "mesh axis '" + config.mesh[k].first + "' of size " + std::to_string(size));
    position[k] = rank % size;
    rank /= size;
  }
  return position;
}

const search::ChipInfo* FindChip(const search::Plan& plan, int chip) {
  // Usually plan.chips[chip] is the chip itself; a scan covers any order.
  if (chip >= 0 && static_cast<size_t>(chip) < plan.chips.size() && plan.chips[static_cast<size_t>(chip)].id == chip) {
    return &plan.chips[static_cast<size_t>(chip)];
  }
  for (const search::ChipInfo& info : plan.chips) {
    if (info.id == chip) return &info;
  }
  return nullptr;
}

std::string ChipName(const search::Plan& plan, int chip) {
  const search::ChipInfo* info = FindChip(plan, chip);
  if (info != nullptr && !info->name.empty()) return info->name;
  return "chip" + std::to_string(chip);
}

ScaleOut ScaleOutOf(const search::Plan& plan, const search::Configuration& config) {
  ScaleOut out;
  out.tpu = plan.tpu;
  const bool slices = plan.tpu && hw::SliceCount(plan.topology) > 1;
  int max_chip = -1;
  for (const search::ChipInfo& info : plan.chips) max_chip = std::max(max_chip, info.id);
  for (int chip : config.placement) max_chip = std::max(max_chip, chip);
  std::vector<int> domains(static_cast<size_t>(max_chip + 1), 0);
  std::vector<int> seen;
  for (const search::ChipInfo& info : plan.chips) {
    if (info.coords.empty() || (plan.tpu && !slices)) continue;
    int domain = slices ? info.coords.back() : (info.coords.size() == 2 ? info.coords[0] : 0);
    domains[static_cast<size_t>(info.id)] = domain;
    if (std::find(seen.begin(), seen.end(), domain) == seen.end()) seen.push_back(domain);
  }
  if (seen.size() < 2 || MeshDevices(config) != static_cast<int64_t>(config.placement.size())) return out;
  out.multi = true;
  std::vector<int64_t> shape;
  for (const auto& axis : config.mesh) shape.push_back(axis.second);
  out.split = place::SplitOverDomains(domains, shape, config.placement);
  for (size_t j = 0; j < config.mesh.size(); ++j) {
    if (out.split.outer[j] > 1) out.outer_axes.push_back({config.mesh[j].first, out.split.outer[j]});
    if (out.split.inner[j] > 1) out.inner_axes.push_back({config.mesh[j].first, out.split.inner[j]});
  }
  return out;
}

std::string ScaleOutText(const ScaleOut& s) {
  if (!s.multi) return "";
  auto degrees = [](const std::vector<std::pair<std::string, int64_t>>& axes) {
    std::string text;
    for (const auto& [name, degree] : axes) text += (text.empty() ? "" : ",") + name + "=" + std::to_string(degree);
    return text.empty() ? std::string("none") : text;
  };
  const std::string domain = s.tpu ? "slice" : "node";
  const std::string count = std::to_string(s.split.domains) + " " + domain + (s.split.domains == 1 ? "" : "s");
  std::string text = std::string(s.tpu ? "DCN" : "inter-node") + ": " + degrees(s.outer_axes) + " across " + count +
                     "; " + (s.tpu ? "ICI" : "intra-node") + ": " + degrees(s.inner_axes) + " inside each " + domain;
  if (!s.split.hybrid) {
    text += " (not a hybrid mesh: the " + domain + "s do not tile the mesh axis by axis; the degrees above are the "
            "most " + domain + "s one line of each axis crosses)";
  }
  return text;
}

std::string PySpecEntry(const std::vector<std::string>& axes) {
  if (axes.empty()) return "None";
  if (axes.size() == 1) return PyString(axes[0]);
  return JoinList(axes, PyString, "(", ")");
}

std::string PySpecTuple(const std::vector<std::vector<std::string>>& spec) {
  return JoinList(spec, PySpecEntry, "(", ")", /*python_tuple=*/true);
}

std::string ShapeText(const std::vector<int64_t>& shape) { return IntList(shape); }

std::vector<KindCost> CostByKind(const price::SimResult& result) {
  std::vector<KindCost> kinds;
  for (const price::ClassCost& cls : result.classes) {
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const KindCost& k) { return k.kind == cls.kind; });
    if (it == kinds.end()) {
      kinds.push_back(KindCost{cls.kind});
      it = kinds.end() - 1;
    }
    it->count += cls.count;
    it->bytes += cls.bytes.value() * cls.count;
    it->time += cls.time.value() * cls.count;
    it->exposed += cls.exposed.value();
  }
  std::stable_sort(kinds.begin(), kinds.end(), [](const KindCost& a, const KindCost& b) {
    if (a.time != b.time) return a.time > b.time;
    return a.kind < b.kind;
  });
  return kinds;
}

std::vector<const price::ClassCost*> ClassesByTime(const price::SimResult& result) {
  std::vector<const price::ClassCost*> classes;
  for (const price::ClassCost& cls : result.classes) classes.push_back(&cls);
  std::stable_sort(classes.begin(), classes.end(), [](const price::ClassCost* a, const price::ClassCost* b) {
    return a->time * a->count > b->time * b->count;
  });
  return classes;
}

std::vector<const price::LinkLoad*> BusiestLinks(const price::SimResult& result, size_t limit) {
  std::vector<const price::LinkLoad*> links;
  for (const price::LinkLoad& link : result.links) links.push_back(&link);
  std::stable_sort(links.begin(), links.end(), [](const price::LinkLoad* a, const price::LinkLoad* b) {
    if (a->busy != b->busy) return a->busy > b->busy;
    return a->channel < b->channel;
  });
  if (links.size() > limit) links.resize(limit);
  return links;
}

std::string WorkloadText(const search::Plan& plan) {
  if (!plan.program_format.empty()) return "an imported " + plan.program_format + " program";
  std::string clip = std::to_string(plan.width) + "x" + std::to_string(plan.height) + ", " +
                     std::to_string(plan.frames) + " frames";
  if (plan.train) return "training step of " + std::to_string(plan.batch) + " clips of " + clip;
  return clip;
}

std::string ThroughputText(const search::Plan& plan, const search::Configuration& config) {
  if (plan.train) {
    double rate = config.step_latency.value() > 0 ? static_cast<double>(plan.batch) / config.step_latency.value() : 0;
    // Three significant digits, trailing zeros kept ("3.80", "38.4", "384").
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", rate >= 100 ? 0 : rate >= 10 ? 1 : 2, rate);
    return std::string(text) + " samples/s";
  }
  return FormatDuration(VideoLatency(plan, config)) + "/video";
}

double VideoLatency(const search::Plan& plan, const search::Configuration& config) {
  return plan.stages_latency.value() + config.step_latency.value() * static_cast<double>(plan.steps);
}

std::string StagesText(const search::Plan& plan, const search::Configuration& config) {
  if (plan.stages.empty()) return "";
  std::string out;
  bool steps_written = false;
  auto steps = [&] {
    out += (out.empty() ? "" : " + ") + std::to_string(plan.steps) + " x " + FormatDuration(config.step_latency) +
           " steps";
    steps_written = true;
  };
  for (const search::StagePlan& stage : plan.stages) {
    if (!steps_written && stage.kind == "vae-decoder") steps();
    out += (out.empty() ? "" : " + ") + stage.name + " " + FormatDuration(stage.latency.value()) + " (" + stage.sharding +
           (stage.offloaded ? ", offloaded" : "") + ")";
  }
  if (!steps_written) steps();
  return out;
}

std::string StepsText(const search::Plan& plan, const search::Configuration& config) {
  if (plan.train) return "AdamW, remat " + (config.remat.empty() ? std::string("none") : config.remat);
  return std::to_string(plan.steps) + (plan.steps == 1 ? " step" : " steps") + ", cfg " + plan.cfg_mode;
}

std::vector<std::string> PlanDocstringLines(const search::Plan& plan, const search::Configuration& config) {
  std::vector<std::string> lines = {"Model " + PyText(plan.model) + ", " + PyText(WorkloadText(plan)) + ", " +
              PyText(StepsText(plan, config)) + ", on " + PyText(plan.topology) + " (" + PyText(plan.chip) + ").",
          "Configuration " + PyText(config.label) + ": mesh " + PyText(MeshText(config)) + ", sharding " +
              PyText(config.sharding) + ", placement by " + PyText(config.placement_method) + ".",
          "Predicted: " + FormatDuration(config.step_latency) + " per step, " + ThroughputText(plan, config) +
              ", peak memory " + FormatBytes(config.peak_memory.value()) + " per device."};
  if (config.pipefusion > 1) {
    // The shardings are one stage's program on one patch (search/pipefusion.h).
    lines.push_back("PipeFusion: " + std::to_string(config.pipefusion) + " stages x " +
                    std::to_string(config.pipeline_patches) +
                    " patches on the 'pipefusion' axis, which these shardings do not express: they are one stage's "
                    "program on one patch; xDiT's --pipefusion_parallel_degree runs the pipeline.");
  }
  return lines;
}

std::string MicroBatchPython(const search::Configuration& config) {
  if (config.accumulate <= 1) return "";
  std::string out;
  auto line = [&out](const std::string& text = "") { out += text + "\n"; };
  line();
  line();
  line("# Gradient accumulation the plan priced: each training step runs ACCUMULATE micro-steps, each a");
  line("# forward and backward on its slice of the batch, their gradients summed (sharded like the");
  line("# parameters, each micro-step's reduced into the sum), then one optimizer update on the sum.");
  line("ACCUMULATE = " + std::to_string(config.accumulate));
  line();
  line();
  line("def micro_batch(batch, index, count=ACCUMULATE):");
  line("    \"\"\"Micro-step `index` of {name: array [B, ...]} (B this rank's samples, or the global batch");
  line("    under jit): samples index, index + count, ... as the plan slices them (reshaped to");
  line("    [B / count, count, ...], column `index` taken), so a batch split over the data axis stays split.\"\"\"");
  line("    out = {}");
  line("    for name, value in batch.items():");
  line("        samples = value.shape[0]");
  line("        if samples % count:");
  line("            raise ValueError(f\"{name}: {samples} samples do not split into {count} micro-steps\")");
  line("        out[name] = value.reshape((samples // count, count) + tuple(value.shape[1:]))[:, index]");
  line("    return out");
  return out;
}

std::string ExpertsPython(const search::Plan& plan, const search::Configuration& config,
                          const std::string& place_experts, const std::string& place_one) {
  if (config.noise_experts <= 1 || config.noise_experts_mode.empty()) return "";
  const bool swap = config.noise_experts_mode == "swap";
  std::string out;
  auto line = [&out](const std::string& text = "") { out += text + "\n"; };
  line();
  line();
  line("# Denoising experts: " + std::to_string(config.noise_experts) + " of identical structure, one running per step:");
  line("# the first runs steps [0, " + std::to_string(plan.noise_switch_step) +
       "), the second the rest. Each is sharded as the table above");
  line("# (the plan compiled one). Mode " + PyString(config.noise_experts_mode) + ": " +
       (swap ? "one expert on the devices; at the switch the next is"
             : "every expert resident (the peak memory counts them"));
  line(swap ? "# loaded from host memory (" + FormatDuration(config.noise_swap_per_video) +
                  " per video, in the prediction)."
            : "# all). Nothing moves between steps.");
  line("# Diffusers' Wan 2.2 pipeline holds them as pipe.transformer and pipe.transformer_2.");
  line("EXPERTS = " + std::to_string(config.noise_experts));
  line("EXPERT_SWITCH_STEP = " + std::to_string(plan.noise_switch_step));
  line("EXPERT_MODE = " + PyString(config.noise_experts_mode));
  line();
  line();
  line("def expert_of_step(step):");
  line("    \"\"\"Index of the expert that runs denoising step `step` (0-based).\"\"\"");
  line("    return 0 if step < EXPERT_SWITCH_STEP else EXPERTS - 1");
  line();
  line();
  line("def " + place_experts + "(mesh, experts, step=0, strict=True):");
  line("    \"\"\"[{name: tensor}] per expert -> the list with the experts the plan keeps on the");
  line("    devices placed (all under hold-both; under swap only expert_of_step(step), the");
  line("    others returned as given, on the host). Under swap call it again at the switch.\"\"\"");
  line("    if len(experts) != EXPERTS:");
  line("        raise ValueError(f\"this plan has {EXPERTS} experts, got {len(experts)}\")");
  line("    active = expert_of_step(step)");
  line("    return [");
  line("        " + place_one + "(mesh, params, strict) if EXPERT_MODE != \"swap\" or k == active else params");
  line("        for k, params in enumerate(experts)");
  line("    ]");
  return out;
}

}  // namespace az::emit
