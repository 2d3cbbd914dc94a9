#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @acc(%x: tensor<?x96xbf16>, %w: tensor<40x96xbf16>, %c: tensor<?x40xf32>) -> tensor<?x40xf32> {
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x96xbf16>, tensor<40x96xbf16>) outs(%c : tensor<?x40xf32>) {
  ^bb0(%p: bf16, %q: bf16, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %qe = arith.extf %q : bf16 to f32
    %r = arith.mulf %qe, %pe : f32
    %s = arith.addf %r, %o : f32
    linalg.yield %s : f32
  } -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}
