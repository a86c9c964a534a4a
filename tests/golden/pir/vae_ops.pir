graph "vae-ops" {
  input %0 "z" : f32[1,16,2,4,4]
  param %1 "conv1.weight" : f32[32,16,3,3,3]
  param %2 "conv1.bias" : f32[32]
  param %3 "norm.gamma" : f32[32]
  param %4 "gn.weight" : f32[32]
  param %5 "gn.bias" : f32[32]
  %6 = conv3d "conv1" (%0, %1, %2) {padding = [2, 0, 1, 1, 1, 1], stride = [1, 1, 1]} : f32[1,32,2,4,4]
  %7 = rms_norm "norm" (%6, %3) {axis = 1, eps = 1e-12} : f32[1,32,2,4,4]
  %8 = group_norm "gn" (%7, %4, %5) {eps = 1e-06, groups = 8} : f32[1,32,2,4,4]
  %9 = upsample "up" (%8) {scale = [1, 1, 2, 2, 2]} : f32[1,32,4,8,8]
  return %9
}
