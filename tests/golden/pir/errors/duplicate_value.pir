// expected-error@4:3: value %0 is defined twice
graph "g" {
  input %0 "x" : f32[4]
  %0 = neg "n" (%0) : f32[4]
  return %0
}
