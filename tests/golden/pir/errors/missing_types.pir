// expected-error@5:3: expected ':' and the result types, found identifier 'return'
graph "g" {
  input %0 "x" : f32[4]
  %1 = neg "n" (%0)
  return %1
}
