// expected-error@4:3: op defines 1 result(s) but declares 2 result type(s)
graph "g" {
  input %0 "x" : f32[4]
  %1 = neg "n" (%0) : f32[4], f32[4]
  return %1
}
