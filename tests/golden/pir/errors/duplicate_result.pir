// expected-error@4:7: value %1 is defined twice
graph "g" {
  input %0 "x" : f32[4,4]
  %1, %1 = custom "split" (%0) {target = "split2"} : f32[4,2], f32[4,2]
  return %1
}
