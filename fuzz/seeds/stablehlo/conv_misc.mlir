// Convolutions, reducer form, while, dense_resource.
#loc9 = loc("conv.1")
module @jit_conv {
  func.func @main(%x: tensor<1x16x16x8x3xbf16> loc("latent"), %w: tensor<2x2x1x3x64xbf16>, %img: tensor<1x32x32x3xf32>, %k: tensor<3x3x3x16xf32>) -> (tensor<1x8x8x8x64xbf16>, tensor<1x16x16x16xf32>, tensor<4xf32>) {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f], window = {stride = [2, 2, 1], pad = [[0, 0], [0, 0], [0, 0]], lhs_dilate = [1, 1, 1], rhs_dilate = [1, 1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x8x3xbf16>, tensor<2x2x1x3x64xbf16>) -> tensor<1x8x8x8x64xbf16> loc(#loc9)
    %1 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x32x32x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x16x16x16xf32>
    %2 = stablehlo.constant dense_resource<blob1> : tensor<4xf32>
    %3 = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %4:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %3) : tensor<i64>, tensor<4xf32>
     cond {
      %c_1 = stablehlo.constant dense<4> : tensor<i64>
      %5 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %5 = stablehlo.add %iterArg_0, %2 : tensor<4xf32>
      stablehlo.return %iterArg, %5 : tensor<i64>, tensor<4xf32>
    }
    %6 = stablehlo.reduce(%3 init: %3) across dimensions = [] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
     reducer(%a: tensor<f32> loc("r"), %b: tensor<f32> loc("r"))  {
      %7 = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %7 : tensor<f32>
    } loc(#loc9)
    %8 = stablehlo.add %4#1, %6 : tensor<4xf32>
    %9 = chlo.erf %8 : tensor<4xf32> -> tensor<4xf32>
    return %0, %1, %9 : tensor<1x8x8x8x64xbf16>, tensor<1x16x16x16xf32>, tensor<4xf32>
  } loc(#loc9)
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F0000803F0000803F0000803F"
    }
  }
#-}
