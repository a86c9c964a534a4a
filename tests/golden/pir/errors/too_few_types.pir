// expected-error@4:3: op defines 2 result(s) but declares 1 result type(s)
graph "g" {
  input %0 "x" : f32[4,4]
  %1, %2 = custom "split" (%0) {target = "split2"} : f32[4,2]
  return %1
}
