// Kernel names as CUPTI gives them (mangled) made readable: the full signature, and the function's
// own name that `ncu --kernel-name-base function -k` matches.
#include <gtest/gtest.h>

#include "harness/launches/kernel_names.hpp"

namespace nb {
namespace {

TEST(KernelNames, AMangledTemplateKernelDemanglesToItsSignature) {
  EXPECT_EQ(demangled_kernel_name("_ZN2nb4rows9fused_bwdIfLi8EEEvNS0_4ArgsE"),
            "void nb::rows::fused_bwd<float, 8>(nb::rows::Args)");
}

TEST(KernelNames, AnExternCNameIsItsOwnDemangledAndShortName) {
  EXPECT_EQ(demangled_kernel_name("ln_tma_bwd_kernel"), "ln_tma_bwd_kernel");
  EXPECT_EQ(short_kernel_name("ln_tma_bwd_kernel"), "ln_tma_bwd_kernel");
  EXPECT_EQ(demangled_kernel_name(""), "");
}

TEST(KernelNames, TheShortNameDropsReturnTypeScopesTemplateArgumentsAndParameters) {
  EXPECT_EQ(short_kernel_name("void nb::rows::fused_bwd<float, 8>(nb::rows::Args)"), "fused_bwd");
  EXPECT_EQ(short_kernel_name(demangled_kernel_name("_ZN12_GLOBAL__N_15naiveEPf")), "naive");
  EXPECT_EQ(short_kernel_name(demangled_kernel_name("_ZN2nb15batchnorm_train5split12_GLOBAL__N_113partials_rowsILi4EEEvN"
                                                    "S_2bn7FwdArgsENS1_9SplitGeomEPNS_7WelfordE")),
            "partials_rows");
}

TEST(KernelNames, ScopesInsideTemplateArgumentsDoNotCutTheShortName) {
  EXPECT_EQ(short_kernel_name("void cutlass::Kernel2<cutlass::gemm::Gemm<float, (anonymous namespace)::Tag> >"
                              "(cutlass::Params<1>::type)"),
            "Kernel2");
  EXPECT_EQ(short_kernel_name("void nb::dev::kernel<nb::(anonymous namespace)::launch(int)::{lambda(int)#1}>(int)"),
            "kernel");
}

}  // namespace
}  // namespace nb
