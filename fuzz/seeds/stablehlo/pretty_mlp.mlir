// RUN: a JAX-style MLP in the pretty form
#loc1 = loc("x.py":3:0)
module @jit_mlp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x", ?}, {}]>, jax.arg_info = "x"}, %arg1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}p1]>, mhlo.layout_mode = "default"}, %arg2: tensor<64xf32>) -> (tensor<16x64xf32> {jax.result_info = "out", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32> loc(#loc2)
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<64xf32>) -> tensor<16x64xf32>
    %2 = stablehlo.add %0, %1 : tensor<16x64xf32>
    %3 = sdy.sharding_constraint %2 <@mesh, [{"x"}, {}]> : tensor<16x64xf32>
    %4 = call @relu(%3) : (tensor<16x64xf32>) -> tensor<16x64xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<16x64xf32>, tensor<f32>) -> tensor<16xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<16xf32>) -> tensor<16x64xf32>
    %7 = stablehlo.divide %4, %6 : tensor<16x64xf32>
    %8 = stablehlo.tanh %7 : tensor<16x64xf32>
    %9 = stablehlo.logistic %8 : tensor<16x64xf32>
    %10 = stablehlo.rsqrt %9 : tensor<16x64xf32>
    %11 = stablehlo.convert %10 : (tensor<16x64xf32>) -> tensor<16x64xbf16>
    %12 = stablehlo.convert %11 : (tensor<16x64xbf16>) -> tensor<16x64xf32>
    return %12 : tensor<16x64xf32>
  }
  func.func private @relu(%arg0: tensor<16x64xf32>) -> tensor<16x64xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x64xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<16x64xf32>
    return %1 : tensor<16x64xf32>
  }
}
#loc2 = loc("jit(mlp)/dot_general"(#loc1))
