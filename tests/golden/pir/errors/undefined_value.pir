// expected-error@4:23: use of undefined value %7
graph "g" {
  input %0 "x" : f32[4]
  %1 = add "sum" (%0, %7) : f32[4]
  return %1
}
