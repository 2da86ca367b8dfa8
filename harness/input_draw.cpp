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

std::unordered_map<std::int64_t, float> planted_specials(const InputDraw& draw, std::uint64_t seed, std::int64_t elements) {
  std::unordered_map<std::int64_t, float> planted;
  if (draw.plants_specials())
    for (std::int64_t k = 0; k < element_draw::special_count(elements); ++k)
      planted[element_draw::special_position(seed, draw.salt, k, elements)] = element_draw::special_value(k);
  return planted;
}

float stored_draw(const InputDraw& draw, std::uint64_t seed, DType storage, std::int64_t index,
                  const std::unordered_map<std::int64_t, float>& planted) {
  const auto plant = planted.find(index);
  const float v = plant != planted.end() ? plant->second : draw.value(seed, static_cast<std::uint64_t>(index), storage);
  return stored::rounded(v, storage);
}

}  // namespace nb
