#include "baselines/library_alignment.hpp"

#include <cstdint>
#include <string>

#include "harness/errors.hpp"

namespace nb {

bool library_aligned(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

void require_library_alignment(const char* library,
                               std::initializer_list<std::pair<const char*, const void*>> tensors) {
  for (const auto& [name, pointer] : tensors)
    if (!library_aligned(pointer))
      throw Unsupported(std::string(library) + " takes 16-byte aligned tensors; " + name + " starts " +
                        std::to_string(reinterpret_cast<std::uintptr_t>(pointer) % 16) +
                        " bytes past a 16-byte boundary");
}

}  // namespace nb
