// expected-error@4:14: use of undefined value %9
graph "g" {
  input %0 "x" : f32[4]
  return %0, %9
}
