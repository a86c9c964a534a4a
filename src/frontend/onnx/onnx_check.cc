#include "frontend/onnx/onnx_check.h"

#include <onnx/checker.h>
#include <onnx/common/version.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

namespace az::frontend::onnx {

namespace {

namespace ox = ::ONNX_NAMESPACE;

// Every ai.onnx op with a new version at each opset after 17, from the
// OpSet_Onnx_verN classes of onnx/defs/operator_sets.h (onnx/onnx at
// f754691, ONNX 1.20's development tree; opset 27 is the last released).
// An op absent from every row up to N has, at opset N, the schema ONNX 1.12
// holds for opset 17.
struct OpsetChanges {
  int64_t opset;
  const char* ops;  // space-separated
};
constexpr OpsetChanges kOpsChangedSince17[] = {
    {18,
     "BitwiseAnd BitwiseNot BitwiseOr BitwiseXor CenterCropPad Col2Im GroupNormalization LpPool Mish "
     "OptionalGetElement OptionalHasElement Pad ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean "
     "ReduceMin ReduceProd ReduceSumSquare Resize ScatterElements ScatterND Split"},
    {19,
     "AveragePool Cast CastLike Constant DeformConv DequantizeLinear Equal Identity If Loop Pad QuantizeLinear Reshape "
     "Resize Scan Shape Size"},
    {20,
     "AffineGrid ConstantOfShape DFT Gelu GridSample ImageDecoder IsInf IsNaN ReduceMax ReduceMin RegexFullMatch "
     "StringConcat StringSplit"},
    {21,
     "Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten GroupNormalization Identity If Loop Pad "
     "QLinearMatMul QuantizeLinear Reshape Scan Shape Size Squeeze Transpose Unsqueeze"},
    {22,
     "Acos Acosh Asin Asinh Atan Atanh AveragePool Bernoulli Conv ConvTranspose Cos Cosh DeformConv Det Dropout Elu "
     "EyeLike GRU GlobalAveragePool GlobalLpPool GlobalMaxPool GridSample HardSigmoid HardSwish InstanceNormalization "
     "LSTM LpNormalization LpPool MaxPool MaxRoiPool MaxUnpool Mish Multinomial NegativeLogLikelihoodLoss RNN "
     "RandomNormal RandomNormalLike RandomUniform RandomUniformLike RoiAlign Round Selu Sin Sinh Softplus Softsign "
     "Tan ThresholdedRelu"},
    {23,
     "Attention Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad QuantizeLinear "
     "RMSNormalization Reshape RotaryEmbedding Scan Shape Size Squeeze Transpose Unsqueeze"},
    {24,
     "Attention Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad QuantizeLinear "
     "Reshape Scan Shape Size SplitToSequence Squeeze Swish TensorScatter TopK Transpose Unsqueeze"},
    {25,
     "Attention Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad QuantizeLinear "
     "Reshape Scan Shape Size Squeeze Transpose Unsqueeze"},
    {26, "BitCast CumProd"},
    {27, "CausalConvWithState LinearAttention Range"},
};
static_assert(std::size(kOpsChangedSince17) == kNewestTabledOpset - 17);

// The domain a set-aside node carries during the checks: one ONNX 1.12 has no
// schema for, so that the checker and shape inference skip its nodes.
constexpr char kSetAsideDomain[] = "aoizora.unchecked";

bool IsStandardDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// The (domain, op type) of every node of `nodes` and of their subgraphs.
void CollectCalls(const google::protobuf::RepeatedPtrField<ox::NodeProto>& nodes,
                  std::vector<std::pair<std::string, std::string>>* calls) {
  for (const ox::NodeProto& node : nodes) {
    calls->emplace_back(node.domain(), node.op_type());
    for (const ox::AttributeProto& a : node.attribute()) {
      if (a.has_g()) CollectCalls(a.g().node(), calls);
      for (const ox::GraphProto& g : a.graphs()) CollectCalls(g.node(), calls);
    }
  }
}

// Functions calling functions: a cycle, or a chain deeper than
// kMaxFunctionNesting, is refused (ONNX 1.12's inference of a call recurses
// into the callee without a bound). Depths are capped at kMaxFunctionNesting
// + 1, so the search recurses no deeper than that whatever the file holds.
Status CheckFunctionNesting(const ox::ModelProto& model, const std::string& file) {
  constexpr int kTooDeep = kMaxFunctionNesting + 1;
  std::map<std::pair<std::string, std::string>, int> index;  // (domain, name) -> function
  for (int f = 0; f < model.functions_size(); ++f) index[{model.functions(f).domain(), model.functions(f).name()}] = f;
  std::vector<std::vector<int>> callees(model.functions_size());
  for (int f = 0; f < model.functions_size(); ++f) {
    std::vector<std::pair<std::string, std::string>> calls;
    CollectCalls(model.functions(f).node(), &calls);
    for (const auto& call : calls) {
      if (auto it = index.find(call); it != index.end()) callees[f].push_back(it->second);
    }
  }
  std::vector<int> depth(model.functions_size(), -1);  // -1 unknown, -2 on the stack
  std::function<int(int, int)> visit = [&](int f, int level) -> int {
    if (depth[f] == -2 || level > kTooDeep) return kTooDeep;  // a cycle, or deep enough
    if (depth[f] >= 0) return depth[f];
    depth[f] = -2;
    int deepest = 0;
    for (int callee : callees[f]) deepest = std::max(deepest, visit(callee, level + 1));
    depth[f] = std::min(deepest + 1, kTooDeep);
    return depth[f];
  };
  for (int f = 0; f < model.functions_size(); ++f) {
    if (visit(f, 1) >= kTooDeep) {
      return InvalidArgument(file + ": function '" + model.functions(f).name() +
                             "': functions nest deeper than " + std::to_string(kMaxFunctionNesting) +
                             " levels (or call themselves)");
    }
  }
  return Status::Ok();
}

// What the checks change in the model and put back when they end (whatever
// way they end): set-aside nodes' domains, an IR version past ONNX 1.12's,
// opset imports of the set-aside domain, external-data initializers (checked
// as graph inputs: the importer never opens their files).
class CheckScope {
 public:
  explicit CheckScope(ox::ModelProto& model) : model_(model) {}
  ~CheckScope() {
    for (auto& [node, domain] : set_aside_) node->set_domain(domain);
    if (ir_version_) model_.set_ir_version(*ir_version_);
    if (added_model_import_) model_.mutable_opset_import()->RemoveLast();
    for (ox::FunctionProto* f : functions_with_import_) f->mutable_opset_import()->RemoveLast();
    if (external_moved_) {
      ox::GraphProto* graph = model_.mutable_graph();
      for (int i = 0; i < inputs_added_; ++i) graph->mutable_input()->RemoveLast();
      graph->mutable_initializer()->Swap(&initializers_);
    }
  }
  CheckScope(const CheckScope&) = delete;
  CheckScope& operator=(const CheckScope&) = delete;

  void SetAside(ox::NodeProto* node) {
    set_aside_.emplace_back(node, node->domain());
    node->set_domain(kSetAsideDomain);
  }
  void ClampIrVersion() {
    ir_version_ = model_.ir_version();
    model_.set_ir_version(ox::IR_VERSION);
  }
  void ImportSetAsideDomain() {
    if (set_aside_.empty()) return;
    ox::OperatorSetIdProto* opset = model_.add_opset_import();
    opset->set_domain(kSetAsideDomain);
    opset->set_version(1);
    added_model_import_ = true;
    for (ox::FunctionProto& f : *model_.mutable_functions()) {
      opset = f.add_opset_import();
      opset->set_domain(kSetAsideDomain);
      opset->set_version(1);
      functions_with_import_.push_back(&f);
    }
  }
  // Initializers with external data become graph inputs of their type and shape.
  void MoveExternalInitializers() {
    ox::GraphProto* graph = model_.mutable_graph();
    bool any = std::any_of(graph->initializer().begin(), graph->initializer().end(),
                           [](const ox::TensorProto& t) { return t.data_location() == ox::TensorProto::EXTERNAL; });
    if (!any) return;
    external_moved_ = true;
    initializers_.Swap(graph->mutable_initializer());
    for (const ox::TensorProto& t : initializers_) {
      if (t.data_location() != ox::TensorProto::EXTERNAL) {
        *graph->add_initializer() = t;
        continue;
      }
      ox::ValueInfoProto* input = graph->add_input();
      input->set_name(t.name());
      ox::TypeProto_Tensor* type = input->mutable_type()->mutable_tensor_type();
      type->set_elem_type(t.data_type());
      for (int64_t d : t.dims()) type->mutable_shape()->add_dim()->set_dim_value(d);
      ++inputs_added_;
    }
  }

 private:
  ox::ModelProto& model_;
  std::vector<std::pair<ox::NodeProto*, std::string>> set_aside_;
  std::optional<int64_t> ir_version_;
  bool added_model_import_ = false;
  std::vector<ox::FunctionProto*> functions_with_import_;
  bool external_moved_ = false;
  int inputs_added_ = 0;
  google::protobuf::RepeatedPtrField<ox::TensorProto> initializers_;
};

// Sets aside the nodes ONNX 1.12 would check against the wrong schema: in
// the standard domain at `opset`, those of ops changed after 17; in another
// domain ONNX 1.12 knows (ai.onnx.ml, ...) at a version past its newest, all.
// Recurses into subgraphs.
void SetAsideNodes(google::protobuf::RepeatedPtrField<ox::NodeProto>* nodes,
                   const std::map<std::string, int64_t>& opsets, CheckScope& scope, OnnxChecks& checks) {
  const auto& known = ox::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (ox::NodeProto& node : *nodes) {
    for (ox::AttributeProto& a : *node.mutable_attribute()) {
      if (a.has_g()) SetAsideNodes(a.mutable_g()->mutable_node(), opsets, scope, checks);
      for (ox::GraphProto& g : *a.mutable_graphs()) SetAsideNodes(g.mutable_node(), opsets, scope, checks);
    }
    std::string domain = IsStandardDomain(node.domain()) ? "" : node.domain();
    auto version = opsets.find(domain);
    auto range = known.find(domain);
    if (version == opsets.end() || range == known.end() || version->second <= range->second.second) continue;
    if (!domain.empty() || OpChangedAfter17(node.op_type(), version->second)) {
      ++checks.nodes_set_aside;
      ++checks.set_aside_ops[(domain.empty() ? "" : domain + ".") + node.op_type()];
      scope.SetAside(&node);
    }
  }
}

std::map<std::string, int64_t> Opsets(const google::protobuf::RepeatedPtrField<ox::OperatorSetIdProto>& imports,
                                      const std::map<std::string, int64_t>* fallback) {
  std::map<std::string, int64_t> opsets;
  if (fallback) opsets = *fallback;
  for (const ox::OperatorSetIdProto& o : imports) opsets[IsStandardDomain(o.domain()) ? "" : o.domain()] = o.version();
  return opsets;
}

// The first node of the main graph the checker rejects, for the error's
// location: one that reads a value nothing before it defines, or fails its
// schema, in the order check_graph tries them; -1 when none (a failure of the
// graph or model as a whole).
int FirstFailingNode(const ox::ModelProto& model) {
  ox::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> imports;
  for (const ox::OperatorSetIdProto& o : model.opset_import()) imports[o.domain()] = static_cast<int>(o.version());
  ctx.set_opset_imports(imports);
  const ox::GraphProto& graph = model.graph();
  ox::checker::LexicalScopeContext lex;
  for (const ox::ValueInfoProto& v : graph.input()) lex.add(v.name());
  for (const ox::TensorProto& t : graph.initializer()) lex.add(t.name());
  for (const ox::SparseTensorProto& t : graph.sparse_initializer()) lex.add(t.values().name());
  for (int n = 0; n < graph.node_size(); ++n) {
    const ox::NodeProto& node = graph.node(n);
    for (const std::string& input : node.input()) {
      if (!input.empty() && !lex.this_graph_has(input)) return n;
    }
    try {
      ox::checker::check_node(node, ctx, lex);
    } catch (const std::exception&) {
      return n;
    }
    for (const std::string& output : node.output()) lex.add(output);
  }
  return -1;
}

}  // namespace

bool OpChangedAfter17(std::string_view op_type, int64_t opset) {
  for (const OpsetChanges& row : kOpsChangedSince17) {
    if (row.opset > opset) break;
    std::string_view ops = row.ops;
    for (size_t start = 0; start < ops.size();) {
      size_t end = std::min(ops.find(' ', start), ops.size());
      if (ops.substr(start, end - start) == op_type) return true;
      start = end + 1;
    }
  }
  return false;
}

std::string OnnxChecks::Summary() const {
  std::string line = "onnx: opset " + std::to_string(opset) + ", IR " + std::to_string(ir_version) + ": ";
  if (!checked) return line + "not checked: " + why_not;
  line += "ONNX " + std::string(ox::LAST_RELEASE_VERSION) + "'s checker and shape inference passed";
  if (ir_version > ox::IR_VERSION) line += " (checked as IR " + std::to_string(ox::IR_VERSION) + ")";
  if (nodes_set_aside == 0) return line;
  line += "; " + std::to_string(nodes_set_aside) + " node(s) of ops newer than its schemas not checked (";
  bool first = true;
  for (const auto& [op, count] : set_aside_ops) {
    line += (first ? "" : ", ") + op + " x" + std::to_string(count);
    first = false;
  }
  return line + ")";
}

StatusOr<OnnxChecks> CheckOnnxModel(ox::ModelProto& model, const std::string& file) {
  OnnxChecks checks;
  checks.ir_version = model.ir_version();
  std::map<std::string, int64_t> opsets = Opsets(model.opset_import(), nullptr);
  checks.opset = opsets.count("") ? opsets[""] : 1;
  AZ_RETURN_IF_ERROR(CheckFunctionNesting(model, file));
  const auto& known = ox::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  int64_t newest_known = known.at("").second;
  if (checks.opset > kNewestTabledOpset) {
    checks.why_not = "ONNX " + std::string(ox::LAST_RELEASE_VERSION) + " knows ai.onnx opsets up to " +
                     std::to_string(newest_known) + ", and which ops changed after that only up to opset " +
                     std::to_string(kNewestTabledOpset);
    return checks;
  }
  CheckScope scope(model);
  SetAsideNodes(model.mutable_graph()->mutable_node(), opsets, scope, checks);
  for (ox::FunctionProto& f : *model.mutable_functions()) {
    SetAsideNodes(f.mutable_node(), Opsets(f.opset_import(), &opsets), scope, checks);
  }
  scope.ImportSetAsideDomain();
  if (model.ir_version() > ox::IR_VERSION) scope.ClampIrVersion();
  scope.MoveExternalInitializers();
  try {
    ox::checker::check_model(model);
  } catch (const std::exception& e) {  // onnx::checker::ValidationError
    int node = FirstFailingNode(model);
    std::string where = file;
    if (node >= 0) {
      const ox::NodeProto& n = model.graph().node(node);
      where += ": node " + std::to_string(node) + " '" + n.name() + "' (" + n.op_type() + ")";
    }
    return InvalidArgument(where + ": error: ONNX checker: " + OneLine(e.what()));
  }
  checks.checked = true;
  try {
    ox::ShapeInferenceOptions options(/*check_type=*/true, /*strict_mode=*/1, /*data_prop=*/true);
    ox::shape_inference::InferShapes(model, ox::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    return InvalidArgument(file + ": error: ONNX shape inference: " + OneLine(e.what()));
  }
  checks.inferred = true;
  return checks;
}

}  // namespace az::frontend::onnx
