graph "custom-ops" {
  input %0 "x" : f32[4,8]
  %1 = custom "noise" () {target = "randn"} : f32[4,8]
  %2, %3 = custom "split" (%0) {flops = 32, target = "split2"} : f32[4,4], f32[4,4]
  %4, %5 = custom "topk" (%2, %1) {k = 2, largest = true, target = "topk"} : f32[4,2], i64[4,2]
  return %3, %4, %5
}
