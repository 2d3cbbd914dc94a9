//===- Donation.h - donated entry-point inputs ------------------*- C++ -*-===//
//
// Helpers of decoda-donate-inputs shared with decoda-compile (docs/ABI.md, "Donated inputs").
//
//===----------------------------------------------------------------------===//

#ifndef DECODA_TRANSFORMS_DONATION_H
#define DECODA_TRANSFORMS_DONATION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::decoda {

/// The argument attribute naming the result an entry-point argument is donated to.
inline constexpr llvm::StringLiteral kDonateAttrName = "decoda.donate";

/// The unit argument attribute decoda-drop-donated-results{mark-written} leaves on a donated
/// argument once its result is gone: the program writes the argument (decoda-gpu-device-buffers).
inline constexpr llvm::StringLiteral kWrittenAttrName = "decoda.written";

/// Sets `decoda.donate = N` on every argument of a public function that is the key or value
/// cache operand of a `decoda.cached_attention` whose updated cache is returned as result `N`
/// (directly, by the function's only return), unless the argument or the result already takes
/// part in a donation. Returns the number of arguments marked.
unsigned markDonatedCaches(ModuleOp module);

/// Checks the `decoda.donate` attributes of `fn`: integers naming a result of the same type, at
/// most one argument per result. Fills `resultOf[arg]` with the result index or -1.
LogicalResult verifyDonations(func::FuncOp fn, SmallVectorImpl<int64_t> &resultOf);

} // namespace mlir::decoda

#endif // DECODA_TRANSFORMS_DONATION_H
