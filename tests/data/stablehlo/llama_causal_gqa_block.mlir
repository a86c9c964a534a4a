// A Llama-style causal attention block with grouped-query K/V, written as
// jax.jit(f).lower(...).as_text() prints it (hand-written at small sizes for
// the tests; the layout and op sequence follow JAX's lowering of
// jnp.repeat(k, 2, axis=2), jnp.tril via iota/compare and jax.nn.softmax):
//   x [1, 512, 1024]; wq, wo [1024, 1024]; wk, wv [1024, 512];
//   16 query heads, 8 K/V heads (repeated 2x), head dim 64;
//   scores masked by where(i >= j, s, -inf) before the softmax.
module @jit_llama_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x512x1024xbf16>, %arg1: tensor<1024x1024xbf16>, %arg2: tensor<1024x512xbf16>, %arg3: tensor<1024x512xbf16>, %arg4: tensor<1024x1024xbf16>) -> (tensor<1x512x1024xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1x512x1024xbf16>
    %1 = stablehlo.reshape %0 : (tensor<1x512x1024xbf16>) -> tensor<1x512x16x64xbf16>
    %2 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x1024xbf16>, tensor<1024x512xbf16>) -> tensor<1x512x512xbf16>
    %3 = stablehlo.reshape %2 : (tensor<1x512x512xbf16>) -> tensor<1x512x8x64xbf16>
    %4 = stablehlo.dot_general %arg0, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x1024xbf16>, tensor<1024x512xbf16>) -> tensor<1x512x512xbf16>
    %5 = stablehlo.reshape %4 : (tensor<1x512x512xbf16>) -> tensor<1x512x8x64xbf16>
    %6 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2, 4] : (tensor<1x512x8x64xbf16>) -> tensor<1x512x8x2x64xbf16>
    %7 = stablehlo.reshape %6 : (tensor<1x512x8x2x64xbf16>) -> tensor<1x512x16x64xbf16>
    %8 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2, 4] : (tensor<1x512x8x64xbf16>) -> tensor<1x512x8x2x64xbf16>
    %9 = stablehlo.reshape %8 : (tensor<1x512x8x2x64xbf16>) -> tensor<1x512x16x64xbf16>
    %10 = stablehlo.dot_general %1, %7, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x512x16x64xbf16>, tensor<1x512x16x64xbf16>) -> tensor<1x16x512x512xbf16>
    %cst = stablehlo.constant dense<1.250000e-01> : tensor<bf16>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<1x16x512x512xbf16>
    %12 = stablehlo.multiply %10, %11 : tensor<1x16x512x512xbf16>
    %13 = stablehlo.iota dim = 0 : tensor<512x512xi32>
    %14 = stablehlo.iota dim = 1 : tensor<512x512xi32>
    %15 = stablehlo.compare  GE, %13, %14,  SIGNED : (tensor<512x512xi32>, tensor<512x512xi32>) -> tensor<512x512xi1>
    %16 = stablehlo.broadcast_in_dim %15, dims = [2, 3] : (tensor<512x512xi1>) -> tensor<1x16x512x512xi1>
    %cst_0 = stablehlo.constant dense<0xFF80> : tensor<bf16>
    %17 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<1x16x512x512xbf16>
    %18 = stablehlo.select %16, %12, %17 : tensor<1x16x512x512xi1>, tensor<1x16x512x512xbf16>
    %19 = stablehlo.convert %18 : (tensor<1x16x512x512xbf16>) -> tensor<1x16x512x512xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %20 = stablehlo.reduce(%19 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<1x16x512x512xf32>, tensor<f32>) -> tensor<1x16x512xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2] : (tensor<1x16x512xf32>) -> tensor<1x16x512x512xf32>
    %22 = stablehlo.subtract %19, %21 : tensor<1x16x512x512xf32>
    %23 = stablehlo.exponential %22 : tensor<1x16x512x512xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<1x16x512x512xf32>, tensor<f32>) -> tensor<1x16x512xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2] : (tensor<1x16x512xf32>) -> tensor<1x16x512x512xf32>
    %26 = stablehlo.divide %23, %25 : tensor<1x16x512x512xf32>
    %27 = stablehlo.convert %26 : (tensor<1x16x512x512xf32>) -> tensor<1x16x512x512xbf16>
    %28 = stablehlo.dot_general %27, %9, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1], precision = [DEFAULT, DEFAULT] : (tensor<1x16x512x512xbf16>, tensor<1x512x16x64xbf16>) -> tensor<1x16x512x64xbf16>
    %29 = stablehlo.transpose %28, dims = [0, 2, 1, 3] : (tensor<1x16x512x64xbf16>) -> tensor<1x512x16x64xbf16>
    %30 = stablehlo.reshape %29 : (tensor<1x512x16x64xbf16>) -> tensor<1x512x1024xbf16>
    %31 = stablehlo.dot_general %30, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1x512x1024xbf16>
    return %31 : tensor<1x512x1024xbf16>
  }
}
