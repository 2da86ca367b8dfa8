#include "harness/narrow_float.hpp"

#include "harness/parallel.hpp"
#include "harness/stored_value.hpp"

namespace nb {
namespace {

std::uint16_t bits_of(float v, DType storage) { return stored::narrow_bits(v, storage); }
float value_of(std::uint16_t bits, DType storage) { return stored::narrow_value(bits, storage); }

}  // namespace

float round_to_storage(float v, DType storage) {
  return is_narrow(storage) ? value_of(bits_of(v, storage), storage) : v;
}

void round_to_storage(std::vector<float>& values, DType storage) {
  if (!is_narrow(storage)) return;
  parallel_for(static_cast<std::int64_t>(values.size()), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) values[static_cast<std::size_t>(i)] = round_to_storage(values[static_cast<std::size_t>(i)], storage);
  });
}

void encode_narrow(const float* in, std::uint16_t* out, std::int64_t n, DType storage) {
  parallel_for(n, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) out[i] = bits_of(in[i], storage);
  });
}

void decode_narrow(const std::uint16_t* in, float* out, std::int64_t n, DType storage) {
  const float poison = poison_value();
  parallel_for(n, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) out[i] = stored::is_narrow_poison_bits(in[i]) ? poison : value_of(in[i], storage);
  });
}

}  // namespace nb
