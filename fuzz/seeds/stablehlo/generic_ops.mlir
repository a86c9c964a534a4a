// Generic forms, multi-results, regions, loc aliases.
module {
  func.func @main(%arg0: tensor<2x8x4xf32>, %arg1: tensor<2x4x8xf32>) -> (tensor<2x8xf32>, tensor<2x8x8xi1>) {
    %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}> : (tensor<2x8x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32> loc(#loc3)
    %1 = "stablehlo.constant"() <{value = dense<0xFF800000> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.reduce"(%0, %1) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%m) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 2>} : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %3:2 = "stablehlo.optimization_barrier"(%0, %2) : (tensor<2x8x8xf32>, tensor<2x8xf32>) -> (tensor<2x8x8xf32>, tensor<2x8xf32>)
    %4 = "stablehlo.compare"(%3#0, %0) {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xi1>
    %5 = stablehlo.iota dim = 0 : tensor<2x8x8xf32>
    %6 = stablehlo.select %4, %5, %0 : tensor<2x8x8xi1>, tensor<2x8x8xf32>
    %7 = stablehlo.slice %6 [0:2, 0:8:2, 0:8] : (tensor<2x8x8xf32>) -> tensor<2x4x8xf32>
    %8 = stablehlo.concatenate %7, %7, dim = 1 : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
    %9 = "stablehlo.transpose"(%8) <{permutation = array<i64: 0, 2, 1>}> : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
    %10 = stablehlo.reshape %9 : (tensor<2x8x8xf32>) -> tensor<16x8xf32>
    %11 = stablehlo.fft %10, type = FFT, length = [8] : (tensor<16x8xf32>) -> tensor<16x8xf32>
    %12 = stablehlo.compare  EQ, %4, %4 : (tensor<2x8x8xi1>, tensor<2x8x8xi1>) -> tensor<2x8x8xi1>
    "func.return"(%3#1, %12) : (tensor<2x8xf32>, tensor<2x8x8xi1>) -> ()
  }
}
#loc3 = loc("dot.7")
