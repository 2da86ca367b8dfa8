#include "baselines/library_alignment.hpp"

#include <cstdint>
#include <string>

#include "harness/errors.hpp"

namespace nb {

void require_library_alignment(const char* library,
                               std::initializer_list<std::pair<const char*, const void*>> tensors) {
  for (const auto& [name, pointer] : tensors) {
    const auto offset = reinterpret_cast<std::uintptr_t>(pointer) % 16;
    if (pointer && offset != 0)
      throw Unsupported(std::string(library) + " takes 16-byte aligned tensors; " + name + " starts " +
                        std::to_string(offset) + " bytes past a 16-byte boundary");
  }
}

}  // namespace nb
