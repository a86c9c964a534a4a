// expected-error@4:41: an op without results declares no result types
graph "g" {
  input %0 "x" : f32[4]
  custom "sink" (%0) {target = "print"} : f32[4]
  return
}
