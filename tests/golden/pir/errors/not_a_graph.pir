// expected-error@2:1: expected 'graph', found identifier 'module'
module "g" {
  return
}
