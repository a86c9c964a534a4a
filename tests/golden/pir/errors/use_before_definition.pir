// expected-error@4:23: use of undefined value %2
graph "g" {
  input %0 "x" : f32[4]
  %1 = add "sum" (%0, %2) : f32[4]
  %2 = neg "n" (%0) : f32[4]
  return %1
}
