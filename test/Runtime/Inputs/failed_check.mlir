// A model whose run-time check fails after it has allocated: y = 2x (256 KiB for 16 rows of x)
// is computed and live before decoda.embedding checks its ids (an id outside [0, 4) fails).
// For call_memory.test and call_memory.py: a failed call must free y, not lose it.
func.func @f(%x: tensor<?x4096xf32> {decoda.name = "x"}, %ids: tensor<?xi64> {decoda.name = "ids"},
             %table: tensor<4x8xf32> {decoda.name = "table"})
    -> (tensor<?x4096xf32> {decoda.name = "y"}, tensor<?x8xf32> {decoda.name = "e"}) {
  %c2 = arith.constant 2.0 : f32
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x4096xf32>) outs(%x : tensor<?x4096xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<?x4096xf32>
  %e = decoda.embedding %ids, %table : tensor<?xi64>, tensor<4x8xf32>
  return %y, %e : tensor<?x4096xf32>, tensor<?x8xf32>
}
