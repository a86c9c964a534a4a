module @jit_forward attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1536xbf16>, %arg1: tensor<1536x1536xbf16>, %arg2: tensor<1536xbf16>, %arg3: tensor<1536xbf16>, %arg4: tensor<1536xbf16>, %arg5: tensor<1536xbf16>, %arg6: tensor<1536xbf16>, %arg7: tensor<1536x1536xbf16>, %arg8: tensor<1536xbf16>, %arg9: tensor<1536x1536xbf16>, %arg10: tensor<1536xbf16>, %arg11: tensor<1536x1536xbf16>, %arg12: tensor<8960xbf16>, %arg13: tensor<1536x8960xbf16>, %arg14: tensor<1536xbf16>, %arg15: tensor<8960x1536xbf16>, %arg16: tensor<1x6x1536xbf16>, %arg17: tensor<1536xbf16>, %arg18: tensor<1536x1536xbf16>, %arg19: tensor<1536xbf16>, %arg20: tensor<1536xbf16>, %arg21: tensor<1536xbf16>, %arg22: tensor<1536x1536xbf16>, %arg23: tensor<1536xbf16>, %arg24: tensor<1536x1536xbf16>, %arg25: tensor<1536xbf16>, %arg26: tensor<1536x1536xbf16>, %arg27: tensor<64xbf16>, %arg28: tensor<1536x64xbf16>, %arg29: tensor<1x2x1536xbf16>, %arg30: tensor<1536xbf16>, %arg31: tensor<1536x16x1x2x2xbf16>, %arg32: tensor<1536xbf16>, %arg33: tensor<4096x1536xbf16>, %arg34: tensor<1536xbf16>, %arg35: tensor<1536x1536xbf16>, %arg36: tensor<1536xbf16>, %arg37: tensor<256x1536xbf16>, %arg38: tensor<1536xbf16>, %arg39: tensor<1536x1536xbf16>, %arg40: tensor<9216xbf16>, %arg41: tensor<1536x9216xbf16>, %arg42: tensor<2x16x21x60x104xf32>, %arg43: tensor<2xf32>, %arg44: tensor<2x512x4096xbf16>) -> (tensor<2x16x21x60x104xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg42 : (tensor<2x16x21x60x104xf32>) -> tensor<2x16x21x60x104xbf16>
    %1 = stablehlo.convolution(%0, %arg31) dim_numbers = [b, f, 0, 1, 2]x[o, i, 0, 1, 2]->[b, f, 0, 1, 2], window = {stride = [1, 2, 2], pad = [[0, 0], [0, 0], [0, 0]], lhs_dilate = [1, 1, 1], rhs_dilate = [1, 1, 1], reverse = [false, false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x21x60x104xbf16>, tensor<1536x16x1x2x2xbf16>) -> tensor<2x1536x21x30x52xbf16>
    %2 = stablehlo.broadcast_in_dim %arg30, dims = [1] : (tensor<1536xbf16>) -> tensor<1x1536x1x1x1xbf16>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2, 3, 4] : (tensor<1x1536x1x1x1xbf16>) -> tensor<2x1536x21x30x52xbf16>
    %4 = stablehlo.add %1, %3 : tensor<2x1536x21x30x52xbf16>
    %5 = stablehlo.reshape %4 : (tensor<2x1536x21x30x52xbf16>) -> tensor<2x1536x32760xbf16>
    %6 = stablehlo.transpose %5, dims = [0, 2, 1] : (tensor<2x1536x32760xbf16>) -> tensor<2x32760x1536xbf16>
    %7 = stablehlo.convert %6 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %8 = stablehlo.iota dim = 0 : tensor<128xf32>
    %9 = stablehlo.negate %8 : tensor<128xf32>
    %cst = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %11 = stablehlo.divide %9, %10 : tensor<128xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %13 = stablehlo.power %12, %11 : tensor<128xf32>
    %14 = stablehlo.broadcast_in_dim %arg43, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    %15 = stablehlo.broadcast_in_dim %13, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x128xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<2x128xf32>
    %18 = stablehlo.multiply %16, %17 : tensor<2x128xf32>
    %19 = stablehlo.cosine %18 : tensor<2x128xf32>
    %20 = stablehlo.sine %18 : tensor<2x128xf32>
    %21 = stablehlo.concatenate %19, %20, dim = 1 : (tensor<2x128xf32>, tensor<2x128xf32>) -> tensor<2x256xf32>
    %22 = stablehlo.convert %arg37 : (tensor<256x1536xbf16>) -> tensor<256x1536xf32>
    %23 = stablehlo.dot_general %21, %22, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x256xf32>, tensor<256x1536xf32>) -> tensor<2x1536xf32>
    %24 = stablehlo.convert %arg36 : (tensor<1536xbf16>) -> tensor<1536xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [1] : (tensor<1536xf32>) -> tensor<1x1536xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1] : (tensor<1x1536xf32>) -> tensor<2x1536xf32>
    %27 = stablehlo.add %23, %26 : tensor<2x1536xf32>
    %28 = call @silu(%27) : (tensor<2x1536xf32>) -> tensor<2x1536xf32>
    %29 = stablehlo.convert %arg39 : (tensor<1536x1536xbf16>) -> tensor<1536x1536xf32>
    %30 = stablehlo.dot_general %28, %29, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1536xf32>, tensor<1536x1536xf32>) -> tensor<2x1536xf32>
    %31 = stablehlo.convert %arg38 : (tensor<1536xbf16>) -> tensor<1536xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [1] : (tensor<1536xf32>) -> tensor<1x1536xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1] : (tensor<1x1536xf32>) -> tensor<2x1536xf32>
    %34 = stablehlo.add %30, %33 : tensor<2x1536xf32>
    %35 = call @silu(%34) : (tensor<2x1536xf32>) -> tensor<2x1536xf32>
    %36 = stablehlo.convert %arg41 : (tensor<1536x9216xbf16>) -> tensor<1536x9216xf32>
    %37 = stablehlo.dot_general %35, %36, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1536xf32>, tensor<1536x9216xf32>) -> tensor<2x9216xf32>
    %38 = stablehlo.convert %arg40 : (tensor<9216xbf16>) -> tensor<9216xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [1] : (tensor<9216xf32>) -> tensor<1x9216xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0, 1] : (tensor<1x9216xf32>) -> tensor<2x9216xf32>
    %41 = stablehlo.add %37, %40 : tensor<2x9216xf32>
    %42 = stablehlo.reshape %41 : (tensor<2x9216xf32>) -> tensor<2x6x1536xf32>
    %43 = stablehlo.dot_general %arg44, %arg33, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x512x4096xbf16>, tensor<4096x1536xbf16>) -> tensor<2x512x1536xbf16>
    %44 = stablehlo.broadcast_in_dim %arg32, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %46 = stablehlo.add %43, %45 : tensor<2x512x1536xbf16>
    %47 = stablehlo.multiply %46, %46 : tensor<2x512x1536xbf16>
    %48 = stablehlo.multiply %47, %46 : tensor<2x512x1536xbf16>
    %cst_1 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %49 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<2x512x1536xbf16>
    %50 = stablehlo.multiply %49, %48 : tensor<2x512x1536xbf16>
    %51 = stablehlo.add %46, %50 : tensor<2x512x1536xbf16>
    %cst_2 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %52 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<2x512x1536xbf16>
    %53 = stablehlo.multiply %52, %51 : tensor<2x512x1536xbf16>
    %54 = stablehlo.tanh %53 : tensor<2x512x1536xbf16>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %55 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<2x512x1536xbf16>
    %56 = stablehlo.add %55, %54 : tensor<2x512x1536xbf16>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %57 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<bf16>) -> tensor<2x512x1536xbf16>
    %58 = stablehlo.multiply %57, %56 : tensor<2x512x1536xbf16>
    %59 = stablehlo.multiply %46, %58 : tensor<2x512x1536xbf16>
    %60 = stablehlo.dot_general %59, %arg35, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x512x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x512x1536xbf16>
    %61 = stablehlo.broadcast_in_dim %arg34, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %62 = stablehlo.broadcast_in_dim %61, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %63 = stablehlo.add %60, %62 : tensor<2x512x1536xbf16>
    %64 = stablehlo.iota dim = 0 : tensor<21xf32>
    %65 = stablehlo.iota dim = 0 : tensor<22xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %67 = stablehlo.multiply %66, %65 : tensor<22xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %69 = stablehlo.add %68, %67 : tensor<22xf32>
    %cst_7 = stablehlo.constant dense<4.400000e+01> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %71 = stablehlo.divide %69, %70 : tensor<22xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %73 = stablehlo.power %72, %71 : tensor<22xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %75 = stablehlo.divide %74, %73 : tensor<22xf32>
    %76 = stablehlo.broadcast_in_dim %64, dims = [0] : (tensor<21xf32>) -> tensor<21x1xf32>
    %77 = stablehlo.broadcast_in_dim %75, dims = [1] : (tensor<22xf32>) -> tensor<1x22xf32>
    %78 = stablehlo.broadcast_in_dim %76, dims = [0, 1] : (tensor<21x1xf32>) -> tensor<21x22xf32>
    %79 = stablehlo.broadcast_in_dim %77, dims = [0, 1] : (tensor<1x22xf32>) -> tensor<21x22xf32>
    %80 = stablehlo.multiply %78, %79 : tensor<21x22xf32>
    %81 = stablehlo.iota dim = 0 : tensor<30xf32>
    %82 = stablehlo.iota dim = 0 : tensor<21xf32>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %84 = stablehlo.multiply %83, %82 : tensor<21xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %86 = stablehlo.add %85, %84 : tensor<21xf32>
    %cst_12 = stablehlo.constant dense<4.200000e+01> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %88 = stablehlo.divide %86, %87 : tensor<21xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %90 = stablehlo.power %89, %88 : tensor<21xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %92 = stablehlo.divide %91, %90 : tensor<21xf32>
    %93 = stablehlo.broadcast_in_dim %81, dims = [0] : (tensor<30xf32>) -> tensor<30x1xf32>
    %94 = stablehlo.broadcast_in_dim %92, dims = [1] : (tensor<21xf32>) -> tensor<1x21xf32>
    %95 = stablehlo.broadcast_in_dim %93, dims = [0, 1] : (tensor<30x1xf32>) -> tensor<30x21xf32>
    %96 = stablehlo.broadcast_in_dim %94, dims = [0, 1] : (tensor<1x21xf32>) -> tensor<30x21xf32>
    %97 = stablehlo.multiply %95, %96 : tensor<30x21xf32>
    %98 = stablehlo.iota dim = 0 : tensor<52xf32>
    %99 = stablehlo.iota dim = 0 : tensor<21xf32>
    %cst_15 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %101 = stablehlo.multiply %100, %99 : tensor<21xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %103 = stablehlo.add %102, %101 : tensor<21xf32>
    %cst_17 = stablehlo.constant dense<4.200000e+01> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %105 = stablehlo.divide %103, %104 : tensor<21xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %106 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %107 = stablehlo.power %106, %105 : tensor<21xf32>
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %109 = stablehlo.divide %108, %107 : tensor<21xf32>
    %110 = stablehlo.broadcast_in_dim %98, dims = [0] : (tensor<52xf32>) -> tensor<52x1xf32>
    %111 = stablehlo.broadcast_in_dim %109, dims = [1] : (tensor<21xf32>) -> tensor<1x21xf32>
    %112 = stablehlo.broadcast_in_dim %110, dims = [0, 1] : (tensor<52x1xf32>) -> tensor<52x21xf32>
    %113 = stablehlo.broadcast_in_dim %111, dims = [0, 1] : (tensor<1x21xf32>) -> tensor<52x21xf32>
    %114 = stablehlo.multiply %112, %113 : tensor<52x21xf32>
    %115 = stablehlo.broadcast_in_dim %80, dims = [0, 3] : (tensor<21x22xf32>) -> tensor<21x1x1x22xf32>
    %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1, 2, 3] : (tensor<21x1x1x22xf32>) -> tensor<21x30x52x22xf32>
    %117 = stablehlo.broadcast_in_dim %97, dims = [1, 3] : (tensor<30x21xf32>) -> tensor<1x30x1x21xf32>
    %118 = stablehlo.broadcast_in_dim %117, dims = [0, 1, 2, 3] : (tensor<1x30x1x21xf32>) -> tensor<21x30x52x21xf32>
    %119 = stablehlo.broadcast_in_dim %114, dims = [2, 3] : (tensor<52x21xf32>) -> tensor<1x1x52x21xf32>
    %120 = stablehlo.broadcast_in_dim %119, dims = [0, 1, 2, 3] : (tensor<1x1x52x21xf32>) -> tensor<21x30x52x21xf32>
    %121 = stablehlo.concatenate %116, %118, %120, dim = 3 : (tensor<21x30x52x22xf32>, tensor<21x30x52x21xf32>, tensor<21x30x52x21xf32>) -> tensor<21x30x52x64xf32>
    %122 = stablehlo.reshape %121 : (tensor<21x30x52x64xf32>) -> tensor<32760x64xf32>
    %123 = stablehlo.convert %arg16 : (tensor<1x6x1536xbf16>) -> tensor<1x6x1536xf32>
    %124 = stablehlo.broadcast_in_dim %123, dims = [0, 1, 2] : (tensor<1x6x1536xf32>) -> tensor<2x6x1536xf32>
    %125 = stablehlo.add %124, %42 : tensor<2x6x1536xf32>
    %126 = stablehlo.slice %125 [0:2, 0:1, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %127 = stablehlo.slice %125 [0:2, 1:2, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %128 = stablehlo.slice %125 [0:2, 2:3, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %129 = stablehlo.slice %125 [0:2, 3:4, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %130 = stablehlo.slice %125 [0:2, 4:5, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %131 = stablehlo.slice %125 [0:2, 5:6, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %132 = stablehlo.reduce(%7 init: %cst_20) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %133 = stablehlo.broadcast_in_dim %132, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_21 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %134 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %135 = stablehlo.divide %133, %134 : tensor<2x32760x1xf32>
    %136 = stablehlo.broadcast_in_dim %135, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %137 = stablehlo.subtract %7, %136 : tensor<2x32760x1536xf32>
    %138 = chlo.square %137 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %139 = stablehlo.reduce(%138 init: %cst_22) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %140 = stablehlo.broadcast_in_dim %139, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_23 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %141 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %142 = stablehlo.divide %140, %141 : tensor<2x32760x1xf32>
    %143 = stablehlo.broadcast_in_dim %135, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %144 = stablehlo.subtract %7, %143 : tensor<2x32760x1536xf32>
    %cst_24 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %145 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %146 = stablehlo.add %142, %145 : tensor<2x32760x1xf32>
    %147 = stablehlo.rsqrt %146 : tensor<2x32760x1xf32>
    %148 = stablehlo.broadcast_in_dim %147, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %149 = stablehlo.multiply %144, %148 : tensor<2x32760x1536xf32>
    %150 = stablehlo.broadcast_in_dim %127, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %151 = stablehlo.multiply %149, %150 : tensor<2x32760x1536xf32>
    %152 = stablehlo.add %149, %151 : tensor<2x32760x1536xf32>
    %153 = stablehlo.broadcast_in_dim %126, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %154 = stablehlo.add %152, %153 : tensor<2x32760x1536xf32>
    %155 = stablehlo.convert %154 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %156 = stablehlo.dot_general %155, %arg24, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %157 = stablehlo.broadcast_in_dim %arg23, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %158 = stablehlo.broadcast_in_dim %157, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %159 = stablehlo.add %156, %158 : tensor<2x32760x1536xbf16>
    %160 = stablehlo.convert %159 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %161 = chlo.square %160 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %162 = stablehlo.reduce(%161 init: %cst_25) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %163 = stablehlo.broadcast_in_dim %162, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_26 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %164 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %165 = stablehlo.divide %163, %164 : tensor<2x32760x1xf32>
    %cst_27 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %166 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %167 = stablehlo.add %165, %166 : tensor<2x32760x1xf32>
    %168 = stablehlo.rsqrt %167 : tensor<2x32760x1xf32>
    %169 = stablehlo.broadcast_in_dim %168, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %170 = stablehlo.multiply %160, %169 : tensor<2x32760x1536xf32>
    %171 = stablehlo.convert %170 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %172 = stablehlo.broadcast_in_dim %arg20, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %173 = stablehlo.broadcast_in_dim %172, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %174 = stablehlo.multiply %171, %173 : tensor<2x32760x1536xbf16>
    %175 = stablehlo.dot_general %155, %arg18, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %176 = stablehlo.broadcast_in_dim %arg17, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %177 = stablehlo.broadcast_in_dim %176, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %178 = stablehlo.add %175, %177 : tensor<2x32760x1536xbf16>
    %179 = stablehlo.convert %178 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %180 = chlo.square %179 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %181 = stablehlo.reduce(%180 init: %cst_28) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %182 = stablehlo.broadcast_in_dim %181, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_29 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %183 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %184 = stablehlo.divide %182, %183 : tensor<2x32760x1xf32>
    %cst_30 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %186 = stablehlo.add %184, %185 : tensor<2x32760x1xf32>
    %187 = stablehlo.rsqrt %186 : tensor<2x32760x1xf32>
    %188 = stablehlo.broadcast_in_dim %187, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %189 = stablehlo.multiply %179, %188 : tensor<2x32760x1536xf32>
    %190 = stablehlo.convert %189 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %191 = stablehlo.broadcast_in_dim %arg19, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %192 = stablehlo.broadcast_in_dim %191, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %193 = stablehlo.multiply %190, %192 : tensor<2x32760x1536xbf16>
    %194 = stablehlo.dot_general %155, %arg26, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %195 = stablehlo.broadcast_in_dim %arg25, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %196 = stablehlo.broadcast_in_dim %195, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %197 = stablehlo.add %194, %196 : tensor<2x32760x1536xbf16>
    %198 = stablehlo.reshape %174 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x12x128xbf16>
    %199 = stablehlo.convert %198 : (tensor<2x32760x12x128xbf16>) -> tensor<2x32760x12x128xf32>
    %200 = stablehlo.reshape %199 : (tensor<2x32760x12x128xf32>) -> tensor<2x32760x12x64x2xf32>
    %201 = stablehlo.cosine %122 : tensor<32760x64xf32>
    %202 = stablehlo.broadcast_in_dim %201, dims = [1, 3] : (tensor<32760x64xf32>) -> tensor<1x32760x1x64xf32>
    %203 = stablehlo.sine %122 : tensor<32760x64xf32>
    %204 = stablehlo.broadcast_in_dim %203, dims = [1, 3] : (tensor<32760x64xf32>) -> tensor<1x32760x1x64xf32>
    %205 = stablehlo.slice %200 [0:2, 0:32760, 0:12, 0:64, 0:1] : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x64x1xf32>
    %206 = stablehlo.reshape %205 : (tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64xf32>
    %207 = stablehlo.slice %200 [0:2, 0:32760, 0:12, 0:64, 1:2] : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x64x1xf32>
    %208 = stablehlo.reshape %207 : (tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64xf32>
    %209 = stablehlo.broadcast_in_dim %202, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %210 = stablehlo.multiply %206, %209 : tensor<2x32760x12x64xf32>
    %211 = stablehlo.broadcast_in_dim %204, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %212 = stablehlo.multiply %208, %211 : tensor<2x32760x12x64xf32>
    %213 = stablehlo.subtract %210, %212 : tensor<2x32760x12x64xf32>
    %214 = stablehlo.broadcast_in_dim %204, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %215 = stablehlo.multiply %206, %214 : tensor<2x32760x12x64xf32>
    %216 = stablehlo.broadcast_in_dim %202, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %217 = stablehlo.multiply %208, %216 : tensor<2x32760x12x64xf32>
    %218 = stablehlo.add %215, %217 : tensor<2x32760x12x64xf32>
    %219 = stablehlo.broadcast_in_dim %213, dims = [0, 1, 2, 3] : (tensor<2x32760x12x64xf32>) -> tensor<2x32760x12x64x1xf32>
    %220 = stablehlo.broadcast_in_dim %218, dims = [0, 1, 2, 3] : (tensor<2x32760x12x64xf32>) -> tensor<2x32760x12x64x1xf32>
    %221 = stablehlo.concatenate %219, %220, dim = 4 : (tensor<2x32760x12x64x1xf32>, tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64x2xf32>
    %222 = stablehlo.reshape %221 : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x128xf32>
    %223 = stablehlo.convert %222 : (tensor<2x32760x12x128xf32>) -> tensor<2x32760x12x128xbf16>
    %224 = stablehlo.reshape %193 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x12x128xbf16>
    %225 = stablehlo.convert %224 : (tensor<2x32760x12x128xbf16>) -> tensor<2x32760x12x128xf32>
    %226 = stablehlo.reshape %225 : (tensor<2x32760x12x128xf32>) -> tensor<2x32760x12x64x2xf32>
    %227 = stablehlo.cosine %122 : tensor<32760x64xf32>
    %228 = stablehlo.broadcast_in_dim %227, dims = [1, 3] : (tensor<32760x64xf32>) -> tensor<1x32760x1x64xf32>
    %229 = stablehlo.sine %122 : tensor<32760x64xf32>
    %230 = stablehlo.broadcast_in_dim %229, dims = [1, 3] : (tensor<32760x64xf32>) -> tensor<1x32760x1x64xf32>
    %231 = stablehlo.slice %226 [0:2, 0:32760, 0:12, 0:64, 0:1] : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x64x1xf32>
    %232 = stablehlo.reshape %231 : (tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64xf32>
    %233 = stablehlo.slice %226 [0:2, 0:32760, 0:12, 0:64, 1:2] : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x64x1xf32>
    %234 = stablehlo.reshape %233 : (tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64xf32>
    %235 = stablehlo.broadcast_in_dim %228, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %236 = stablehlo.multiply %232, %235 : tensor<2x32760x12x64xf32>
    %237 = stablehlo.broadcast_in_dim %230, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %238 = stablehlo.multiply %234, %237 : tensor<2x32760x12x64xf32>
    %239 = stablehlo.subtract %236, %238 : tensor<2x32760x12x64xf32>
    %240 = stablehlo.broadcast_in_dim %230, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %241 = stablehlo.multiply %232, %240 : tensor<2x32760x12x64xf32>
    %242 = stablehlo.broadcast_in_dim %228, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %243 = stablehlo.multiply %234, %242 : tensor<2x32760x12x64xf32>
    %244 = stablehlo.add %241, %243 : tensor<2x32760x12x64xf32>
    %245 = stablehlo.broadcast_in_dim %239, dims = [0, 1, 2, 3] : (tensor<2x32760x12x64xf32>) -> tensor<2x32760x12x64x1xf32>
    %246 = stablehlo.broadcast_in_dim %244, dims = [0, 1, 2, 3] : (tensor<2x32760x12x64xf32>) -> tensor<2x32760x12x64x1xf32>
    %247 = stablehlo.concatenate %245, %246, dim = 4 : (tensor<2x32760x12x64x1xf32>, tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64x2xf32>
    %248 = stablehlo.reshape %247 : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x128xf32>
    %249 = stablehlo.convert %248 : (tensor<2x32760x12x128xf32>) -> tensor<2x32760x12x128xbf16>
    %250 = stablehlo.reshape %197 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x12x128xbf16>
    %251 = stablehlo.dot_general %223, %249, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x12x128xbf16>, tensor<2x32760x12x128xbf16>) -> tensor<2x12x32760x32760xf32>
    %cst_31 = stablehlo.constant dense<0.0883883461> : tensor<f32>
    %252 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<2x12x32760x32760xf32>
    %253 = stablehlo.multiply %251, %252 : tensor<2x12x32760x32760xf32>
    %cst_32 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %254 = stablehlo.reduce(%253 init: %cst_32) applies stablehlo.maximum across dimensions = [3] : (tensor<2x12x32760x32760xf32>, tensor<f32>) -> tensor<2x12x32760xf32>
    %cst_33 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %255 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<2x12x32760xf32>
    %256 = stablehlo.maximum %255, %254 : tensor<2x12x32760xf32>
    %257 = stablehlo.broadcast_in_dim %256, dims = [0, 1, 2] : (tensor<2x12x32760xf32>) -> tensor<2x12x32760x1xf32>
    %258 = stablehlo.broadcast_in_dim %257, dims = [0, 1, 2, 3] : (tensor<2x12x32760x1xf32>) -> tensor<2x12x32760x32760xf32>
    %259 = stablehlo.subtract %253, %258 : tensor<2x12x32760x32760xf32>
    %260 = stablehlo.exponential %259 : tensor<2x12x32760x32760xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %261 = stablehlo.reduce(%260 init: %cst_34) applies stablehlo.add across dimensions = [3] : (tensor<2x12x32760x32760xf32>, tensor<f32>) -> tensor<2x12x32760xf32>
    %262 = stablehlo.broadcast_in_dim %261, dims = [0, 1, 2] : (tensor<2x12x32760xf32>) -> tensor<2x12x32760x1xf32>
    %263 = stablehlo.broadcast_in_dim %262, dims = [0, 1, 2, 3] : (tensor<2x12x32760x1xf32>) -> tensor<2x12x32760x32760xf32>
    %264 = stablehlo.divide %260, %263 : tensor<2x12x32760x32760xf32>
    %265 = stablehlo.convert %264 : (tensor<2x12x32760x32760xf32>) -> tensor<2x12x32760x32760xbf16>
    %266 = stablehlo.dot_general %250, %265, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x12x128xbf16>, tensor<2x12x32760x32760xbf16>) -> tensor<2x12x128x32760xbf16>
    %267 = stablehlo.transpose %266, dims = [0, 3, 1, 2] : (tensor<2x12x128x32760xbf16>) -> tensor<2x32760x12x128xbf16>
    %268 = stablehlo.reshape %267 : (tensor<2x32760x12x128xbf16>) -> tensor<2x32760x1536xbf16>
    %269 = stablehlo.dot_general %268, %arg22, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %270 = stablehlo.broadcast_in_dim %arg21, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %271 = stablehlo.broadcast_in_dim %270, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %272 = stablehlo.add %269, %271 : tensor<2x32760x1536xbf16>
    %273 = stablehlo.convert %272 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %274 = stablehlo.broadcast_in_dim %128, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %275 = stablehlo.multiply %273, %274 : tensor<2x32760x1536xf32>
    %276 = stablehlo.add %7, %275 : tensor<2x32760x1536xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %277 = stablehlo.reduce(%276 init: %cst_35) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %278 = stablehlo.broadcast_in_dim %277, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_36 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %279 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %280 = stablehlo.divide %278, %279 : tensor<2x32760x1xf32>
    %281 = stablehlo.broadcast_in_dim %280, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %282 = stablehlo.subtract %276, %281 : tensor<2x32760x1536xf32>
    %283 = chlo.square %282 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %284 = stablehlo.reduce(%283 init: %cst_37) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %285 = stablehlo.broadcast_in_dim %284, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_38 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %286 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %287 = stablehlo.divide %285, %286 : tensor<2x32760x1xf32>
    %288 = stablehlo.broadcast_in_dim %280, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %289 = stablehlo.subtract %276, %288 : tensor<2x32760x1536xf32>
    %cst_39 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %290 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %291 = stablehlo.add %287, %290 : tensor<2x32760x1xf32>
    %292 = stablehlo.rsqrt %291 : tensor<2x32760x1xf32>
    %293 = stablehlo.broadcast_in_dim %292, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %294 = stablehlo.multiply %289, %293 : tensor<2x32760x1536xf32>
    %295 = stablehlo.convert %arg3 : (tensor<1536xbf16>) -> tensor<1536xf32>
    %296 = stablehlo.broadcast_in_dim %295, dims = [2] : (tensor<1536xf32>) -> tensor<1x1x1536xf32>
    %297 = stablehlo.broadcast_in_dim %296, dims = [0, 1, 2] : (tensor<1x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %298 = stablehlo.multiply %294, %297 : tensor<2x32760x1536xf32>
    %299 = stablehlo.convert %arg2 : (tensor<1536xbf16>) -> tensor<1536xf32>
    %300 = stablehlo.broadcast_in_dim %299, dims = [2] : (tensor<1536xf32>) -> tensor<1x1x1536xf32>
    %301 = stablehlo.broadcast_in_dim %300, dims = [0, 1, 2] : (tensor<1x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %302 = stablehlo.add %298, %301 : tensor<2x32760x1536xf32>
    %303 = stablehlo.convert %302 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %304 = stablehlo.dot_general %303, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %305 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %306 = stablehlo.broadcast_in_dim %305, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %307 = stablehlo.add %304, %306 : tensor<2x32760x1536xbf16>
    %308 = stablehlo.convert %307 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %309 = chlo.square %308 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %310 = stablehlo.reduce(%309 init: %cst_40) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %311 = stablehlo.broadcast_in_dim %310, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_41 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %312 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %313 = stablehlo.divide %311, %312 : tensor<2x32760x1xf32>
    %cst_42 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %314 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %315 = stablehlo.add %313, %314 : tensor<2x32760x1xf32>
    %316 = stablehlo.rsqrt %315 : tensor<2x32760x1xf32>
    %317 = stablehlo.broadcast_in_dim %316, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %318 = stablehlo.multiply %308, %317 : tensor<2x32760x1536xf32>
    %319 = stablehlo.convert %318 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %320 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %321 = stablehlo.broadcast_in_dim %320, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %322 = stablehlo.multiply %319, %321 : tensor<2x32760x1536xbf16>
    %323 = stablehlo.dot_general %63, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x512x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x512x1536xbf16>
    %324 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %325 = stablehlo.broadcast_in_dim %324, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %326 = stablehlo.add %323, %325 : tensor<2x512x1536xbf16>
    %327 = stablehlo.convert %326 : (tensor<2x512x1536xbf16>) -> tensor<2x512x1536xf32>
    %328 = chlo.square %327 : tensor<2x512x1536xf32> -> tensor<2x512x1536xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %329 = stablehlo.reduce(%328 init: %cst_43) applies stablehlo.add across dimensions = [2] : (tensor<2x512x1536xf32>, tensor<f32>) -> tensor<2x512xf32>
    %330 = stablehlo.broadcast_in_dim %329, dims = [0, 1] : (tensor<2x512xf32>) -> tensor<2x512x1xf32>
    %cst_44 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %331 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<2x512x1xf32>
    %332 = stablehlo.divide %330, %331 : tensor<2x512x1xf32>
    %cst_45 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %333 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<2x512x1xf32>
    %334 = stablehlo.add %332, %333 : tensor<2x512x1xf32>
    %335 = stablehlo.rsqrt %334 : tensor<2x512x1xf32>
    %336 = stablehlo.broadcast_in_dim %335, dims = [0, 1, 2] : (tensor<2x512x1xf32>) -> tensor<2x512x1536xf32>
    %337 = stablehlo.multiply %327, %336 : tensor<2x512x1536xf32>
    %338 = stablehlo.convert %337 : (tensor<2x512x1536xf32>) -> tensor<2x512x1536xbf16>
    %339 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %340 = stablehlo.broadcast_in_dim %339, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %341 = stablehlo.multiply %338, %340 : tensor<2x512x1536xbf16>
    %342 = stablehlo.dot_general %63, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x512x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x512x1536xbf16>
    %343 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %344 = stablehlo.broadcast_in_dim %343, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %345 = stablehlo.add %342, %344 : tensor<2x512x1536xbf16>
    %346 = stablehlo.reshape %322 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x12x128xbf16>
    %347 = stablehlo.reshape %341 : (tensor<2x512x1536xbf16>) -> tensor<2x512x12x128xbf16>
    %348 = stablehlo.reshape %345 : (tensor<2x512x1536xbf16>) -> tensor<2x512x12x128xbf16>
    %349 = stablehlo.dot_general %346, %347, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x12x128xbf16>, tensor<2x512x12x128xbf16>) -> tensor<2x12x32760x512xf32>
    %cst_46 = stablehlo.constant dense<0.0883883461> : tensor<f32>
    %350 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<2x12x32760x512xf32>
    %351 = stablehlo.multiply %349, %350 : tensor<2x12x32760x512xf32>
    %cst_47 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %352 = stablehlo.reduce(%351 init: %cst_47) applies stablehlo.maximum across dimensions = [3] : (tensor<2x12x32760x512xf32>, tensor<f32>) -> tensor<2x12x32760xf32>
    %cst_48 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %353 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<2x12x32760xf32>
    %354 = stablehlo.maximum %353, %352 : tensor<2x12x32760xf32>
    %355 = stablehlo.broadcast_in_dim %354, dims = [0, 1, 2] : (tensor<2x12x32760xf32>) -> tensor<2x12x32760x1xf32>
    %356 = stablehlo.broadcast_in_dim %355, dims = [0, 1, 2, 3] : (tensor<2x12x32760x1xf32>) -> tensor<2x12x32760x512xf32>
    %357 = stablehlo.subtract %351, %356 : tensor<2x12x32760x512xf32>
    %358 = stablehlo.exponential %357 : tensor<2x12x32760x512xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %359 = stablehlo.reduce(%358 init: %cst_49) applies stablehlo.add across dimensions = [3] : (tensor<2x12x32760x512xf32>, tensor<f32>) -> tensor<2x12x32760xf32>
    %360 = stablehlo.broadcast_in_dim %359, dims = [0, 1, 2] : (tensor<2x12x32760xf32>) -> tensor<2x12x32760x1xf32>
    %361 = stablehlo.broadcast_in_dim %360, dims = [0, 1, 2, 3] : (tensor<2x12x32760x1xf32>) -> tensor<2x12x32760x512xf32>
    %362 = stablehlo.divide %358, %361 : tensor<2x12x32760x512xf32>
    %363 = stablehlo.convert %362 : (tensor<2x12x32760x512xf32>) -> tensor<2x12x32760x512xbf16>
    %364 = stablehlo.dot_general %348, %363, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x512x12x128xbf16>, tensor<2x12x32760x512xbf16>) -> tensor<2x12x128x32760xbf16>
    %365 = stablehlo.transpose %364, dims = [0, 3, 1, 2] : (tensor<2x12x128x32760xbf16>) -> tensor<2x32760x12x128xbf16>
    %366 = stablehlo.reshape %365 : (tensor<2x32760x12x128xbf16>) -> tensor<2x32760x1536xbf16>
    %367 = stablehlo.dot_general %366, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %368 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %369 = stablehlo.broadcast_in_dim %368, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %370 = stablehlo.add %367, %369 : tensor<2x32760x1536xbf16>
    %371 = stablehlo.convert %370 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %372 = stablehlo.add %276, %371 : tensor<2x32760x1536xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %373 = stablehlo.reduce(%372 init: %cst_50) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %374 = stablehlo.broadcast_in_dim %373, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_51 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %375 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %376 = stablehlo.divide %374, %375 : tensor<2x32760x1xf32>
    %377 = stablehlo.broadcast_in_dim %376, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %378 = stablehlo.subtract %372, %377 : tensor<2x32760x1536xf32>
    %379 = chlo.square %378 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %380 = stablehlo.reduce(%379 init: %cst_52) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %381 = stablehlo.broadcast_in_dim %380, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_53 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %382 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %383 = stablehlo.divide %381, %382 : tensor<2x32760x1xf32>
    %384 = stablehlo.broadcast_in_dim %376, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %385 = stablehlo.subtract %372, %384 : tensor<2x32760x1536xf32>
    %cst_54 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %386 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %387 = stablehlo.add %383, %386 : tensor<2x32760x1xf32>
    %388 = stablehlo.rsqrt %387 : tensor<2x32760x1xf32>
    %389 = stablehlo.broadcast_in_dim %388, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %390 = stablehlo.multiply %385, %389 : tensor<2x32760x1536xf32>
    %391 = stablehlo.broadcast_in_dim %130, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %392 = stablehlo.multiply %390, %391 : tensor<2x32760x1536xf32>
    %393 = stablehlo.add %390, %392 : tensor<2x32760x1536xf32>
    %394 = stablehlo.broadcast_in_dim %129, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %395 = stablehlo.add %393, %394 : tensor<2x32760x1536xf32>
    %396 = stablehlo.convert %395 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %397 = stablehlo.dot_general %396, %arg13, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x8960xbf16>) -> tensor<2x32760x8960xbf16>
    %398 = stablehlo.broadcast_in_dim %arg12, dims = [2] : (tensor<8960xbf16>) -> tensor<1x1x8960xbf16>
    %399 = stablehlo.broadcast_in_dim %398, dims = [0, 1, 2] : (tensor<1x1x8960xbf16>) -> tensor<2x32760x8960xbf16>
    %400 = stablehlo.add %397, %399 : tensor<2x32760x8960xbf16>
    %401 = stablehlo.multiply %400, %400 : tensor<2x32760x8960xbf16>
    %402 = stablehlo.multiply %401, %400 : tensor<2x32760x8960xbf16>
    %cst_55 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %403 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<bf16>) -> tensor<2x32760x8960xbf16>
    %404 = stablehlo.multiply %403, %402 : tensor<2x32760x8960xbf16>
    %405 = stablehlo.add %400, %404 : tensor<2x32760x8960xbf16>
    %cst_56 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %406 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<bf16>) -> tensor<2x32760x8960xbf16>
    %407 = stablehlo.multiply %406, %405 : tensor<2x32760x8960xbf16>
    %408 = stablehlo.tanh %407 : tensor<2x32760x8960xbf16>
    %cst_57 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %409 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<bf16>) -> tensor<2x32760x8960xbf16>
    %410 = stablehlo.add %409, %408 : tensor<2x32760x8960xbf16>
    %cst_58 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %411 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<bf16>) -> tensor<2x32760x8960xbf16>
    %412 = stablehlo.multiply %411, %410 : tensor<2x32760x8960xbf16>
    %413 = stablehlo.multiply %400, %412 : tensor<2x32760x8960xbf16>
    %414 = stablehlo.dot_general %413, %arg15, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x8960xbf16>, tensor<8960x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %415 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %416 = stablehlo.broadcast_in_dim %415, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %417 = stablehlo.add %414, %416 : tensor<2x32760x1536xbf16>
    %418 = stablehlo.convert %417 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %419 = stablehlo.broadcast_in_dim %131, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %420 = stablehlo.multiply %418, %419 : tensor<2x32760x1536xf32>
    %421 = stablehlo.add %372, %420 : tensor<2x32760x1536xf32>
    %422 = stablehlo.broadcast_in_dim %34, dims = [0, 2] : (tensor<2x1536xf32>) -> tensor<2x1x1536xf32>
    %423 = stablehlo.convert %arg29 : (tensor<1x2x1536xbf16>) -> tensor<1x2x1536xf32>
    %424 = stablehlo.broadcast_in_dim %423, dims = [0, 1, 2] : (tensor<1x2x1536xf32>) -> tensor<2x2x1536xf32>
    %425 = stablehlo.broadcast_in_dim %422, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x2x1536xf32>
    %426 = stablehlo.add %424, %425 : tensor<2x2x1536xf32>
    %427 = stablehlo.slice %426 [0:2, 0:1, 0:1536] : (tensor<2x2x1536xf32>) -> tensor<2x1x1536xf32>
    %428 = stablehlo.slice %426 [0:2, 1:2, 0:1536] : (tensor<2x2x1536xf32>) -> tensor<2x1x1536xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %429 = stablehlo.reduce(%421 init: %cst_59) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %430 = stablehlo.broadcast_in_dim %429, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_60 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %431 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %432 = stablehlo.divide %430, %431 : tensor<2x32760x1xf32>
    %433 = stablehlo.broadcast_in_dim %432, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %434 = stablehlo.subtract %421, %433 : tensor<2x32760x1536xf32>
    %435 = chlo.square %434 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %436 = stablehlo.reduce(%435 init: %cst_61) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %437 = stablehlo.broadcast_in_dim %436, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_62 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %438 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %439 = stablehlo.divide %437, %438 : tensor<2x32760x1xf32>
    %440 = stablehlo.broadcast_in_dim %432, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %441 = stablehlo.subtract %421, %440 : tensor<2x32760x1536xf32>
    %cst_63 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %442 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %443 = stablehlo.add %439, %442 : tensor<2x32760x1xf32>
    %444 = stablehlo.rsqrt %443 : tensor<2x32760x1xf32>
    %445 = stablehlo.broadcast_in_dim %444, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %446 = stablehlo.multiply %441, %445 : tensor<2x32760x1536xf32>
    %447 = stablehlo.broadcast_in_dim %428, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %448 = stablehlo.multiply %446, %447 : tensor<2x32760x1536xf32>
    %449 = stablehlo.add %446, %448 : tensor<2x32760x1536xf32>
    %450 = stablehlo.broadcast_in_dim %427, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %451 = stablehlo.add %449, %450 : tensor<2x32760x1536xf32>
    %452 = stablehlo.convert %451 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %453 = stablehlo.dot_general %452, %arg28, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x64xbf16>) -> tensor<2x32760x64xbf16>
    %454 = stablehlo.broadcast_in_dim %arg27, dims = [2] : (tensor<64xbf16>) -> tensor<1x1x64xbf16>
    %455 = stablehlo.broadcast_in_dim %454, dims = [0, 1, 2] : (tensor<1x1x64xbf16>) -> tensor<2x32760x64xbf16>
    %456 = stablehlo.add %453, %455 : tensor<2x32760x64xbf16>
    %457 = stablehlo.reshape %456 : (tensor<2x32760x64xbf16>) -> tensor<2x21x30x52x1x2x2x16xbf16>
    %458 = stablehlo.transpose %457, dims = [0, 7, 1, 4, 2, 5, 3, 6] : (tensor<2x21x30x52x1x2x2x16xbf16>) -> tensor<2x16x21x1x30x2x52x2xbf16>
    %459 = stablehlo.reshape %458 : (tensor<2x16x21x1x30x2x52x2xbf16>) -> tensor<2x16x21x60x104xbf16>
    %460 = stablehlo.convert %459 : (tensor<2x16x21x60x104xbf16>) -> tensor<2x16x21x60x104xf32>
    return %460 : tensor<2x16x21x60x104xf32>
  }
  func.func private @silu(%arg0: tensor<2x1536xf32>) -> tensor<2x1536xf32> {
    %0 = stablehlo.negate %arg0 : tensor<2x1536xf32>
    %1 = stablehlo.exponential %0 : tensor<2x1536xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x1536xf32>
    %3 = stablehlo.add %2, %1 : tensor<2x1536xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x1536xf32>
    %5 = stablehlo.divide %4, %3 : tensor<2x1536xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<2x1536xf32>
    return %6 : tensor<2x1536xf32>
  }
}
