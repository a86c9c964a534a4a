// expected-error@5:1: expected end of input after the graph, found identifier 'graph'
graph "g" {
  return
}
graph "h" {
  return
}
