#pragma once
// A kernel's names as a reader wants them: the mangled symbol CUPTI reports, demangled into the
// C++ signature, and shortened to the function's own name (what `ncu --kernel-name-base function`
// matches, so `-k` can select the kernel).
#include <string>

namespace nb {

// "void nb::f<float>(Args)" for "_Z1fIfEv5Args"-style symbols; a name that is not a mangled C++
// symbol (an extern "C" kernel) comes back unchanged.
std::string demangled_kernel_name(const std::string& mangled);

// The function's own name in a demangled signature: no return type, scopes, template arguments or
// parameters ("void nb::rows::fused_bwd<float, 8>(nb::rows::Args)" -> "fused_bwd"). A plain name
// comes back unchanged.
std::string short_kernel_name(const std::string& demangled);

}  // namespace nb
