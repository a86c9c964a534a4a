// What the plan emitters (plan_json, report, codegen_jax, codegen_torch,
// compare_svg, output) share: quoting for each target language, units a
// reader can scan, and the plan facts every output must state the same way
// (mesh text, device assignment, speedups).
//
// Quoting invariants:
//   PyString   a Python str literal that evaluates to exactly the input; pure
//              ASCII, so the file's encoding never matters. Non-ASCII UTF-8
//              becomes \uXXXX / \UXXXXXXXX; a byte that is not valid UTF-8
//              becomes \udcXX, Python's surrogateescape for that byte (what
//              os.fsdecode gives), so no input can break the file.
//   PyText     PyString without its quotes: safe inside a docstring ("""...""",
//              not raw) and on a comment line (never holds a newline).
//   XmlText    text content or attribute value of XML (&, <, >, ", ').
//   MarkdownCell  one table cell: | escaped, line breaks folded to spaces.
//   ShellWord  one POSIX shell word: left bare when only safe characters,
//              otherwise single-quoted.
// Numbers: every output formats with the C locale (snprintf / to_chars), so
// the text does not depend on the machine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "place/default_placement.h"
#include "price/simulator.h"
#include "search/plan.h"

namespace az::emit {

std::string PyString(std::string_view text);
std::string PyText(std::string_view text);
// Shortest text that reads back as the same double ("0.1", "1e-06");
// float("nan") / float("inf") for the non-finite.
std::string PyFloat(double value);
std::string XmlText(std::string_view text);
std::string MarkdownCell(std::string_view text);
std::string ShellWord(std::string_view text);

// "12.3 us", "456 ms", "1.23 s": three significant digits; "-" when not finite
// (support/units.h: FormatSeconds always writes three decimals).
std::string FormatDuration(double seconds);
inline std::string FormatDuration(Seconds seconds) { return FormatDuration(seconds.value()); }
// Always milliseconds with one decimal ("1234.5 ms"): comparable in a column.
std::string FormatMs(double seconds);
// "512 B", "1.5 KiB", "12.3 GiB".
std::string FormatBytes(int64_t bytes);
// "1.23x"; "-" when not finite.
std::string FormatRatio(double ratio);
// "73.4%"; "-" when not finite.
std::string FormatPercent(double fraction);

// How many times faster `best` is than `baseline` (baseline / best latency):
// NaN when either latency is not a positive finite number, so a missing
// baseline never shows a made-up speedup.
double Speedup(double baseline_latency_s, double best_latency_s);

// "x=2,y=4"; "-" for an empty mesh.
std::string MeshText(const search::Configuration& config);
// What was planned, for titles: "1280x720, 81 frames" for a zoo model, "an
// imported onnx program" for a file.
std::string WorkloadText(const search::Plan& plan);
// What a step's latency buys: "679 s/video" for inference, "0.42 samples/s"
// for a training step.
std::string ThroughputText(const search::Plan& plan, const search::Configuration& config);
// A configuration's video, end to end: the plan's stages (encoders, VAE) plus
// steps x its step latency.
double VideoLatency(const search::Plan& plan, const search::Configuration& config);
// "umt5-xxl 11.6 ms (tp=4,dp=2) + 50 x 13.6 s steps + wan-vae-decoder 3.49 s (single device)";
// empty without stages.
std::string StagesText(const search::Plan& plan, const search::Configuration& config);
// The steps the workload runs: "50 steps, cfg two-pass" / "AdamW, remat full".
std::string StepsText(const search::Plan& plan, const search::Configuration& config);
// The docstring lines every generated Python file opens with (model and
// video, the configuration, the prediction), escaped for a docstring.
std::vector<std::string> PlanDocstringLines(const search::Plan& plan, const search::Configuration& config);
// The Python block both generated files carry for a model with denoising
// experts (config.experts > 1; "" otherwise): EXPERTS, EXPERT_SWITCH_STEP,
// EXPERT_MODE, expert_of_step(step), and `<place_experts>(mesh, experts,
// step=0, strict=True)` placing each expert's {name: tensor} with
// `place_one` (shard_params / distribute_params): all of them under
// hold-both, only the step's expert under swap (the others stay on the host).
std::string ExpertsPython(const search::Plan& plan, const search::Configuration& config,
                          const std::string& place_experts, const std::string& place_one);
// The Python block both generated files carry for a training plan with
// gradient accumulation (config.accumulate > 1; "" otherwise): ACCUMULATE
// and micro_batch(batch, index, count) slicing each {name: array [B, ...]}
// as the plan's step does (frontend/zoo/train.cc: each rank's block
// reshaped to [B / count, count, ...], column `index` taken), for any array
// type with reshape and [:, i] (numpy, torch, jax).
std::string MicroBatchPython(const search::Configuration& config);
// The product of the mesh axis sizes (1 for an empty mesh).
int64_t MeshDevices(const search::Configuration& config);
// Row-major mesh coordinates of logical rank `rank` (the last axis fastest).
std::vector<int64_t> MeshPosition(const search::Configuration& config, int64_t rank);

// The plan's record of chip `chip` (ChipInfo::id == chip), or nullptr.
const search::ChipInfo* FindChip(const search::Plan& plan, int chip);
// The chip's name, or "chip<N>" when the plan does not list it.
std::string ChipName(const search::Plan& plan, int chip);

// How a configuration's mesh spans the system's scale-out domains: the
// slices of a multi-slice TPU system (joined by DCN) or the nodes of a GPU
// cluster (joined by their NICs). A chip's domain comes from the plan's chip
// list: its slice is the last coordinate on a "CHIP:SHAPE*N" system, its node
// the first on a GPU system. `multi` is false on a one-slice or one-node
// system, and the rest is then empty.
struct ScaleOut {
  bool multi = false;
  bool tpu = false;
  place::DomainSplit split;
  // Per mesh axis of degree > 1 in that part: (axis name, degree).
  std::vector<std::pair<std::string, int64_t>> outer_axes, inner_axes;
};
ScaleOut ScaleOutOf(const search::Plan& plan, const search::Configuration& config);
// "DCN: cfg=2 across 2 slices; ICI: ulysses=4 inside each slice" (TPU),
// "inter-node: dp=8 across 8 nodes; intra-node: ulysses=8 inside each node"
// (GPU); a placement that is not a hybrid mesh says so; "" when !multi.
std::string ScaleOutText(const ScaleOut& scale_out);

// `items`, each written by `text`, joined by ", " between `open` and `close`:
// "[a, b]"; a Python tuple (`python_tuple`) gets the comma one element needs,
// "(a,)", since (a) is just a.
template <typename Item, typename Text>
std::string JoinList(const std::vector<Item>& items, Text text, std::string_view open = "[",
                     std::string_view close = "]", bool python_tuple = false) {
  std::string out(open);
  for (size_t k = 0; k < items.size(); ++k) {
    if (k > 0) out += ", ";
    out += text(items[k]);
  }
  if (python_tuple && items.size() == 1) out += ",";
  return out.append(close);
}
// Integers the same way: "[1, 2]", or "(1, 2)" with the brackets given.
template <typename Int>
std::string IntList(const std::vector<Int>& values, std::string_view open = "[", std::string_view close = "]",
                    bool python_tuple = false) {
  return JoinList(values, [](Int value) { return std::to_string(value); }, open, close, python_tuple);
}

// One PartitionSpec entry as Python: None, "x" or ("x", "y").
std::string PySpecEntry(const std::vector<std::string>& axes);
// A whole PartitionSpec as a Python tuple: (None, "x"), (None,) or ().
std::string PySpecTuple(const std::vector<std::vector<std::string>>& spec);
// "[1, 75600, 5120]".
std::string ShapeText(const std::vector<int64_t>& shape);

// Collective cost of one kind over a step (summed over its classes).
struct KindCost {
  std::string kind;
  int count = 0;       // collectives
  int64_t bytes = 0;   // sum of their buffers
  double time = 0;     // seconds, every instance
  double exposed = 0;  // seconds the compute engine waited
};
// By total time, largest first; ties by kind name.
std::vector<KindCost> CostByKind(const price::SimResult& result);
// Classes by total time (count x time), largest first; ties in issue order.
std::vector<const price::ClassCost*> ClassesByTime(const price::SimResult& result);
// Up to `limit` loaded channels by busy time, largest first; ties in channel order.
std::vector<const price::LinkLoad*> BusiestLinks(const price::SimResult& result, size_t limit);

}  // namespace az::emit
