// expected-error@4:31: integer literal out of range
graph "g" {
  input %0 "x" : f32[4]
  %1 = custom "c" (%0) {big = 9223372036854775808, target = "t"} : f32[4]
  return %1
}
