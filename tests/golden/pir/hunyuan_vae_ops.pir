graph "hunyuan-vae-ops" {
  input %0 "z" : f16[1,16,2,4,4]
  param %1 "conv_in.conv.weight" : f16[32,16,3,3,3]
  param %2 "conv_in.conv.bias" : f16[32]
  %3 = pad "conv_in.pad" (%0) {high = [0, 0, 0, 1, 1], low = [0, 0, 2, 1, 1], mode = "replicate"} : f16[1,16,4,6,6]
  %4 = conv3d "conv_in.conv" (%3, %1, %2) {padding = [0, 0, 0, 0, 0, 0], stride = [1, 1, 1]} : f16[1,32,2,4,4]
  return %4
}
