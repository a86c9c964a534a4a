// Internal to the zoo: the PIR names every builder here uses (families,
// stages, blocks). zoo.h and stages.h are the zoo's interface and do not
// include this header; only the zoo's own files see these declarations, so
// each need not repeat them.
#pragma once

#include "pir/build/graph_builder.h"

namespace az::zoo {

using pir::Attributes;
using pir::DType;
using pir::GraphBuilder;
using pir::OpKind;
using pir::Shape;
using pir::TensorType;
using pir::ValueId;

}  // namespace az::zoo
