// expected-error@4:43: float literal out of range
graph "g" {
  input %0 "x" : f32[4]
  %1 = custom "c" (%0) {target = "t", x = 1e999} : f32[4]
  return %1
}
