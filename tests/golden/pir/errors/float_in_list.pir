// expected-error@4:38: expected an integer, found float 1.5
graph "g" {
  input %0 "x" : f32[4]
  %1 = reshape "r" (%0) {shape = [2, 1.5]} : f32[4]
  return %1
}
