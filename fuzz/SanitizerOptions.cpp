//===- SanitizerOptions.cpp - ASan defaults of the fuzz targets -----------===//
//
// -fsanitize=fuzzer puts libstdc++ before the shared ASan runtime among the needed libraries;
// libstdc++ defines no allocator ASan intercepts (malloc/free stay ASan's), so the link-order
// check is off. Leak detection stays on: a leak is a finding.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "verify_asan_link_order=0:detect_leaks=1:detect_odr_violation=0";
}
