// decoda-lower-runtime-checks: each cf.assert becomes a call of the model's failure hook,
// decoda_check_failed(message), which does not return. In a function's own blocks the assert
// splits its block (cond_br to a block calling the hook, then llvm.unreachable); inside a
// region of one block (an scf.if or scf.for the GPU pipeline still has when it lowers the
// host's checks) it becomes `scf.if %ok {} else { call }`, the region left whole.
// RUN: decoda-opt %s --split-input-file --decoda-lower-runtime-checks | FileCheck %s
// Run: a check that holds lets the function go on, one that fails reaches the hook with its
// message (the hook here prints it and exits with status 3).
// RUN: decoda-opt %s --decoda-lower-runtime-checks --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | mlir-runner -e pass_main -entry-point-result=void | FileCheck %s --check-prefix=PASS
// RUN: decoda-opt %s --decoda-lower-runtime-checks --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | not mlir-runner -e loop_fail_main -entry-point-result=void | FileCheck %s --check-prefix=LOOPFAIL
// RUN: decoda-opt %s --decoda-lower-runtime-checks --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | not mlir-runner -e branch_fail_main -entry-point-result=void | FileCheck %s --check-prefix=BRANCHFAIL
// RUN: decoda-opt %s --decoda-lower-runtime-checks --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts | not mlir-runner -e top_fail_main -entry-point-result=void | FileCheck %s --check-prefix=TOPFAIL

// CHECK-DAG:   llvm.mlir.global internal constant @[[TOP:decoda_check_msg_[0-9]+]]("n must be at most 16\00")
// CHECK-DAG:   llvm.mlir.global internal constant @[[LOOP:decoda_check_msg_[0-9]+]]("row beyond the limit\00")
// CHECK-DAG:   llvm.mlir.global internal constant @[[BRANCH:decoda_check_msg_[0-9]+]]("odd total\00")
// CHECK-LABEL: func.func @checked_sum(
// CHECK:         cf.cond_br %{{.+}}, ^[[GO:.+]], ^[[FAIL:[^ ]+]]
// CHECK-NEXT:  ^[[FAIL]]:
// CHECK-NEXT:    %[[T:.+]] = llvm.mlir.addressof @[[TOP]]
// CHECK-NEXT:    llvm.call @decoda_check_failed(%[[T]])
// CHECK-NEXT:    llvm.unreachable
// CHECK-NEXT:  ^[[GO]]:
// CHECK:         scf.for
// CHECK:           %[[OK:.+]] = arith.cmpi ult
// CHECK-NEXT:      scf.if %[[OK]] {
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %[[M:.+]] = llvm.mlir.addressof @[[LOOP]]
// CHECK-NEXT:        llvm.call @decoda_check_failed(%[[M]])
// CHECK-NEXT:      }
// CHECK:           scf.yield
// CHECK:         scf.if %{{.+}} {
// CHECK:           %[[EVEN:.+]] = arith.cmpi eq
// CHECK-NEXT:      scf.if %[[EVEN]] {
// CHECK-NEXT:      } else {
// CHECK-NEXT:        llvm.mlir.addressof @[[BRANCH]]
// CHECK-NEXT:        llvm.call @decoda_check_failed
// CHECK:         return
// CHECK-NOT:   cf.assert

// PASS: sum 28
// PASS-NOT: row beyond
// LOOPFAIL: row beyond the limit
// LOOPFAIL-NOT: sum
// BRANCHFAIL: odd total
// BRANCHFAIL-NOT: sum
// TOPFAIL: n must be at most 16
// TOPFAIL-NOT: sum

llvm.func @puts(!llvm.ptr) -> i32
llvm.func @printf(!llvm.ptr, ...) -> i32
llvm.func @exit(i32)
llvm.mlir.global internal constant @fmt("sum %ld\0A\00")

// The hook: print the message, exit with status 3.
llvm.func @decoda_check_failed(%msg: !llvm.ptr) {
  %0 = llvm.call @puts(%msg) : (!llvm.ptr) -> i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  llvm.call @exit(%c3) : (i32) -> ()
  llvm.unreachable
}

// sum of i for i < n, each i checked against `limit`; when `even` the sum must be even.
func.func @checked_sum(%n: index, %limit: index, %even: i1) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %small = arith.cmpi ule, %n, %c16 : index
  cf.assert %small, "n must be at most 16"
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %ok = arith.cmpi ult, %i, %limit : index
    cf.assert %ok, "row beyond the limit"
    %next = arith.addi %acc, %i : index
    scf.yield %next : index
  }
  scf.if %even {
    %rem = arith.remui %sum, %c2 : index
    %isEven = arith.cmpi eq, %rem, %c0 : index
    cf.assert %isEven, "odd total"
  }
  return %sum : index
}

func.func @report(%s: index) {
  %fmt = llvm.mlir.addressof @fmt : !llvm.ptr
  %v = arith.index_cast %s : index to i64
  %0 = llvm.call @printf(%fmt, %v) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, i64) -> i32
  return
}

// 0 + 1 + ... + 7 = 28, every check holding.
func.func @pass_main() {
  %n = arith.constant 8 : index
  %t = arith.constant true
  %s = func.call @checked_sum(%n, %n, %t) : (index, index, i1) -> index
  func.call @report(%s) : (index) -> ()
  return
}

// Row 5 is beyond a limit of 5.
func.func @loop_fail_main() {
  %n = arith.constant 8 : index
  %limit = arith.constant 5 : index
  %f = arith.constant false
  %s = func.call @checked_sum(%n, %limit, %f) : (index, index, i1) -> index
  func.call @report(%s) : (index) -> ()
  return
}

// 0 + 1 + 2 + 3 + 4 + 5 = 15 is odd.
func.func @branch_fail_main() {
  %n = arith.constant 6 : index
  %t = arith.constant true
  %s = func.call @checked_sum(%n, %n, %t) : (index, index, i1) -> index
  func.call @report(%s) : (index) -> ()
  return
}

func.func @top_fail_main() {
  %n = arith.constant 17 : index
  %f = arith.constant false
  %s = func.call @checked_sum(%n, %n, %f) : (index, index, i1) -> index
  func.call @report(%s) : (index) -> ()
  return
}

// -----

// Negative: a module without checks is left as it is (no hook declared).
// CHECK-LABEL: func.func @no_checks(
// CHECK-NOT:   decoda_check_failed
func.func @no_checks(%a: index) -> index {
  return %a : index
}
