// The step simulator: evidence x placement x topology x calibration -> latency.
//
// Engines. One compute engine runs the kernels in schedule order, each for its
// compute-model time (compute.h). One communication engine runs the
// collectives in issue order, each for its collective-model time under the
// placement (net/model.h), one at a time: a collective starts when it is issued
// and the engine is free. Asynchronous collectives are issued at their -start
// and the compute engine goes on; their -done waits until the collective has
// finished. A blocking collective is issued and waited for at once. So
//
//   start(c) = max(issue time, end of the previous collective)
//   end(c)   = start(c) + time(c)
//   a done / blocking collective sets the compute clock to max(clock, end(c))
//
// and the step latency is the compute clock after the last event (every
// collective has been waited for). Consequences the tests check: a program
// without collectives takes the sum of its kernel times; the latency is never
// below max(total compute, total communication) (both engines are serial), and
// never above their sum (plus a host offload's exposed transfer, below); a
// placement that is a topology automorphism leaves every collective's time,
// hence the latency, unchanged.
//
// Host offload (remat offload, pir/grad/backward.h). A copy kernel named
// "<origin>.host-reload" (IsHostReload; the built-in compiler's Reload) brings
// a value the forward kept in host memory back into HBM; its bytes crossed the
// chip's host link twice, out after the forward produced them and back before
// the backward, each way at hw::HostLinkBandwidth (the per-direction PCIe
// figure; v5p 1.6e10 B/s). The transfers run asynchronously beside compute,
// not on the collective engine: XLA's host offloading turns the policy's
// offload annotations into asynchronous copies (copy-start / copy-done to the
// pinned_host memory space) on the host DMA path, which the latency-hiding
// scheduler overlaps with the blocks' compute, as it does collectives; they
// do not use ICI. So each direction hides behind the compute of its phase,
// and only its excess shows:
//   T       = offloaded bytes / host link bandwidth           (each direction)
//   exposed = max(0, T - forward compute) + max(0, T - backward compute)
// where the forward is the compute before the first reload kernel and the
// backward (with the optimizer) the rest. The latency adds `exposed` after the
// replay; a program without reloads adds nothing.
//
// Why one communication engine: XLA issues the collectives of one program on
// one stream per device (TPU: the ICI DMA queue; GPU: NCCL's stream), so
// collectives of a step do not overlap each other; their groups do run at the
// same time, and share links (the collective model charges them together).
//
// Speed. Collectives identical in (kind, bytes, groups or pairs) form one
// *class* priced once per placement (a Wan step has ~10 classes for ~600
// collectives); consecutive kernels fold into one compute interval, and an
// async start / compute / done into one op, at construction; identical
// repeated op sequences (the DiT's blocks) are replayed once per evaluation as
// a max-plus matrix applied block after block. So an evaluation is one
// collective-model lookup per class plus a pass over the distinct block
// bodies and the block count, with no allocation. Placement search re-prices
// only the classes a move touches (ClassTime / Replay).
#pragma once

#include <string>
#include <vector>

#include "evidence/evidence.h"
#include "hw/topology.h"
#include "net/calibration.h"
#include "net/model.h"
#include "price/compute.h"

namespace az::price {

// Whether a compute segment brings an offloaded value back from host memory.
bool IsHostReload(const evidence::ComputeSegment& segment);

// One interval of the simulated step (detailed simulation only).
struct Slice {
  enum Engine { kCompute = 0, kCommunication = 1 } engine = kCompute;
  std::string name;
  std::string kind;  // kernel kind or collective kind
  Seconds start, duration;         // from the step's start
  Flops flops;                    // kernels
  Bytes bytes;                    // kernels: moved; collectives: the buffer
  std::string groups;             // collectives: replica groups in logical ids (or pairs)
  std::string algorithm;          // collectives: what the model picked
  Seconds exposed;                // collectives: how long the compute engine waited for it
};

// Per collective class: what it cost in the step.
struct ClassCost {
  std::string kind;
  Bytes bytes;
  std::string groups;
  std::string algorithm;
  int count = 0;         // collectives in the step
  Seconds time;          // one instance
  Seconds exposed;       // how long the compute engine waited, all instances
};

struct LinkLoad {
  int channel = -1;
  std::string name;      // "(0,0)->(1,0)"
  double bytes = 0;      // over the whole step
  Seconds busy;          // bytes / (bandwidth * link efficiency)
};

struct SimResult {
  Seconds latency;                    // the step (host_exposed included)
  Seconds compute;                    // sum of kernel times
  Seconds communication;              // sum of collective times
  Seconds exposed_communication;      // latency - compute - host_exposed: the compute engine waiting
  Seconds host_transfer;              // host offload: time on the host link, each direction
  Seconds host_exposed;               // of which not hidden behind compute (see above)
  int kernels = 0, collectives = 0;
  std::vector<ClassCost> classes;     // in order of first issue
  std::vector<LinkLoad> links;        // loaded channels, in channel order
  std::vector<Slice> slices;          // the timeline (detailed only)
};

class Simulator {
 public:
  // Validates the evidence against the topology (no more devices than chips,
  // Validate()'s schedule invariants) and builds the compute model for the
  // topology's chip.
  static StatusOr<Simulator> Create(const evidence::Evidence& evidence, const hw::Topology& topology,
                                    net::Calibration network, ComputeCalibration compute);

  // A placement for this evidence: one distinct chip per logical device.
  Status CheckPlacement(const net::Placement& placement) const;

  // The hot path: the step latency in seconds. The placement must have passed
  // CheckPlacement (not re-checked here).
  double Latency(const net::Placement& placement);
  // Everything: breakdown, per-class and per-link cost, and with `timeline` the
  // slices of every kernel and collective.
  StatusOr<SimResult> Simulate(const net::Placement& placement, bool timeline);

  // For incremental pricing (placement search): the classes, the logical
  // devices each involves, one class's time, and the latency from given
  // per-class times.
  int num_classes() const { return static_cast<int>(classes_.size()); }
  const net::Collective& class_collective(int c) const { return classes_[static_cast<size_t>(c)].collective; }
  const std::vector<int>& class_devices(int c) const { return classes_[static_cast<size_t>(c)].devices; }
  double ClassTime(int c, const net::Placement& placement);
  double Replay(const double* class_times) const;

  int num_devices() const { return static_cast<int>(evidence_.num_devices); }
  int num_ops() const { return static_cast<int>(ops_.size()); }  // the folded schedule's length
  double compute_time() const { return compute_total_; }
  const evidence::Evidence& evidence() const { return evidence_; }
  const hw::Topology& topology() const { return topology_; }
  net::CollectiveModel& network() { return network_; }
  const ComputeModel& compute() const { return compute_; }

 private:
  struct Class {
    net::Collective collective;
    std::vector<int> devices;  // sorted logical ids taking part
    int count = 0;
  };
  // Folded schedule: kCompute carries a duration; the rest a class and, for
  // async pairs, a slot (the start's position among the starts). kOverlap is
  // the common async pattern start(c), compute(d), done(c) folded into one op:
  //   s = max(clock, comm_free); comm_free = s + t(c); clock = max(clock + d, comm_free).
  struct Op {
    enum Type : uint8_t { kCompute, kStart, kDone, kBlocking, kOverlap } type = kCompute;
    int cls = -1;
    int slot = -1;
    double duration = 0;
  };

  Simulator(const evidence::Evidence& evidence, const hw::Topology& topology, net::Calibration network,
            ComputeModel compute);
  void Build();

  evidence::Evidence evidence_;
  const hw::Topology& topology_;
  net::CollectiveModel network_;
  ComputeModel compute_;
  std::vector<double> segment_time_;
  std::vector<int> collective_class_;
  std::vector<Class> classes_;
  std::vector<Op> ops_;
  // The folded schedule as runs: ops [begin, begin + length) repeated
  // `repeats` times back to back (the blocks of a DiT compile to identical
  // op sequences). A repeated body holds only compute, blocking and overlap
  // ops, each a max-plus linear map of (clock, comm_free); Replay composes the
  // body's 2x2 max-plus matrix once and applies it `repeats` times, instead of
  // replaying every op of every block.
  struct Run {
    int begin = 0, length = 0, repeats = 1;
  };
  std::vector<Run> runs_;
  void BuildRuns();
  int slots_ = 0;
  double compute_total_ = 0;
  int64_t host_bytes_ = 0;    // offloaded bytes per device (each direction)
  double host_time_ = 0, host_exposed_ = 0;
  // Workspace.
  std::vector<double> class_time_;
  mutable std::vector<double> slot_end_;
};

}  // namespace az::price
