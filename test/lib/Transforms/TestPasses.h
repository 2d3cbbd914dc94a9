//===- TestPasses.h - registration of Decoda's test-only passes -*- C++ -*-===//

#ifndef DECODA_TEST_LIB_TRANSFORMS_TESTPASSES_H
#define DECODA_TEST_LIB_TRANSFORMS_TESTPASSES_H

namespace mlir::decoda::test {

/// Registers every test-only pass (decoda-test-*) with the global registry, for tools whose
/// hidden test flags name them. No named pipeline contains them.
void registerTestPasses();

} // namespace mlir::decoda::test

#endif // DECODA_TEST_LIB_TRANSFORMS_TESTPASSES_H
