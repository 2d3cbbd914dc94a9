//===- DecodaDialect.td - the decoda dialect definition ----*- tablegen -*-===//

#ifndef DECODA_DIALECT_TD
#define DECODA_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"

def Decoda_Dialect : Dialect {
  let name = "decoda";
  let cppNamespace = "::mlir::decoda";
  let summary = "Operations of the transformer decoder block";
  let description = [{
    The `decoda` dialect holds what is specific to decoder-only transformers: norms and their fused
    residual forms, residual mixing (plain and hyper-connections), projections and MLPs with their
    gated variants, rotary position embeddings, attention (MHA/GQA/MQA, masks, sinks, softcaps,
    KV cache), multi-head latent attention, mixture of experts, and INT8 quantisation boundaries.

    All ops work on ranked tensors with value semantics. Floating-point ops accept `f32`, `f16` and
    `bf16` storage; every reduction (norm statistics, softmax, matmul accumulation) is carried out in
    `f32` whatever the storage type, and the result is cast back to the storage type. Everything
    generic (elementwise arithmetic, reshapes, constants) is expressed with upstream dialects.

    Weights are tensors (usually `arith.constant`s or function arguments). Unless an op says
    otherwise, a projection weight uses the `out_in` layout of `torch.nn.Linear`: `[out, in]`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

class Decoda_Op<string mnemonic, list<Trait> traits = []>
    : Op<Decoda_Dialect, mnemonic, traits>;

// Storage types of activations and weights.
def Decoda_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;
def Decoda_I8Tensor : RankedTensorOf<[I8]>;
def Decoda_F32Tensor : RankedTensorOf<[F32]>;
def Decoda_IntTensor : RankedTensorOf<[I32, I64]>;

#endif // DECODA_DIALECT_TD
