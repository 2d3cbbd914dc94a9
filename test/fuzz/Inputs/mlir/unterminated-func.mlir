
func.func @qlinear_requantize_float_result(%xq: tensor<2x64xi8>, %wq: tensor<128x64xi8>, %xs: tensor<f32>, %ws: tensor<128xf32>, %os: tensor<f32>) {
  %y = decoda.qlinear %xq, %wq, %xs, %ws requantize(%os : tensor<f32>) : tensor<2x64xi8>, tensor<128x64xi8>, tensor<f32>, tensor<128xf32> -> tensor<2x128xf32>
  return
fun