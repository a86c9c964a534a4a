// expected-error@4:32: expected an attribute value, found identifier 'yes'
graph "g" {
  input %0 "x" : f32[4]
  %1 = custom "c" (%0) {flag = yes, target = "t"} : f32[4]
  return %1
}
