#include "harness/input_draw.hpp"

#include "harness/parallel.hpp"
#include "harness/stored_value.hpp"

namespace nb {

void draw_declared(const std::vector<InputDraw>& draws, std::uint64_t seed, const std::vector<TensorDecl>& decls,
                   HostTensors& host) {
  for (const InputDraw& d : draws) {
    std::vector<float>& values = host[d.tensor];
    const DType storage = decls.at(static_cast<std::size_t>(d.tensor)).dtype;
    const std::int64_t n = static_cast<std::int64_t>(values.size());
    parallel_for(n, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) values[static_cast<std::size_t>(i)] = d.value(seed, static_cast<std::uint64_t>(i), storage);
    });
    if (d.plants_specials())
      for (std::int64_t k = 0; k < element_draw::special_count(n); ++k)
        values[static_cast<std::size_t>(element_draw::special_position(seed, d.salt, k, n))] = element_draw::special_value(k);
  }
}

std::vector<float> draw_elements(const InputDraw& draw, std::uint64_t seed, std::int64_t elements, DType storage,
                                 std::int64_t begin, std::int64_t count) {
  std::vector<float> out(static_cast<std::size_t>(count));
  for (std::int64_t j = 0; j < count; ++j)
    out[static_cast<std::size_t>(j)] = draw.value(seed, static_cast<std::uint64_t>(begin + j), storage);
  if (draw.plants_specials())
    for (std::int64_t k = 0; k < element_draw::special_count(elements); ++k) {
      const std::int64_t at = element_draw::special_position(seed, draw.salt, k, elements);
      if (at >= begin && at < begin + count) out[static_cast<std::size_t>(at - begin)] = element_draw::special_value(k);
    }
  for (float& v : out) v = stored::rounded(v, storage);
  return out;
}

}  // namespace nb
