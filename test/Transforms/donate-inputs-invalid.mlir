// decoda-donate-inputs and decoda-drop-donated-results reject malformed donations by name.
// RUN: decoda-opt %s --decoda-donate-inputs --split-input-file --verify-diagnostics
// RUN: decoda-opt %s --decoda-drop-donated-results --split-input-file --verify-diagnostics

// expected-error @+1 {{'out_of_range': argument 0 (decoda.donate = 2 : i64): no result 2 (the function has 1)}}
func.func @out_of_range(%x: tensor<4xf32> {decoda.donate = 2 : i64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'other_type': argument 0 (decoda.donate = 0 : i64): result 0 has type 'tensor<8xf32>', the argument has type 'tensor<4xf32>'; they must be equal}}
func.func @other_type(%x: tensor<4xf32> {decoda.donate = 0 : i64}, %y: tensor<8xf32>) -> tensor<8xf32> {
  return %y : tensor<8xf32>
}

// -----

// expected-error @+1 {{'twice': argument 1 (decoda.donate = 0 : i64): result 0 is already donated from argument 0}}
func.func @twice(%x: tensor<4xf32> {decoda.donate = 0 : i64}, %y: tensor<4xf32> {decoda.donate = 0 : i64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'not_an_index': argument 0 (decoda.donate = "out"): expected the index of the result it is donated to (an integer)}}
func.func @not_an_index(%x: tensor<4xf32> {decoda.donate = "out"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'two_returns': a function with donated arguments needs a single return}}
func.func @two_returns(%x: tensor<4xf32> {decoda.donate = 0 : i64}, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  return %x : tensor<4xf32>
^b:
  return %x : tensor<4xf32>
}
