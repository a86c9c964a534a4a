graph "layout-ops" {
  input %0 "a" : f32[2,3,4]
  input %1 "b" : f32[2,5,4]
  input %2 "ids" : i64[6]
  param %3 "embedding" : bf16[100,8]
  %4 = concat "cat" (%0, %1) {axis = 1} : f32[2,8,4]
  %5 = transpose "swap" (%4) {perm = [0, 2, 1]} : f32[2,4,8]
  %6 = slice "head" (%5) {limit = [2, 4, 4], start = [0, 0, 0]} : f32[2,4,4]
  %7 = softmax "probs" (%6) {axis = -1} : f32[2,4,4]
  %8 = reduce "total" (%7) {dims = [2], kind = "sum"} : f32[2,4]
  %9 = broadcast "expand" (%8) {dims = [0, 1], shape = [2, 4, 3]} : f32[2,4,3]
  %10 = convert "to_bf16" (%9) {dtype = "bf16"} : bf16[2,4,3]
  %11 = gather "embed" (%3, %2) : bf16[6,8]
  return %10, %11
}
