#pragma once
// How an op draws one input tensor from the counter-based generator, as data: the host draw, the
// device draw and the audit's redraw of sampled slices all follow the same declaration
// (OpSpec::input_draws), so the three hold the same bits for any element.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "harness/distribution.hpp"
#include "harness/element_draw.hpp"
#include "harness/host_device.hpp"
#include "harness/tensors.hpp"

namespace nb {

struct InputDraw {
  enum class Kind {
    distribution,    // the trial's distribution, or a fixed one (dy is always normal)
    uniform,         // U[lo, hi): weights and other parameters
    signed_uniform,  // +-U[lo, hi): the magnitude from `salt`, the sign from U[-1, 1) of `sign_salt`
  };
  int tensor = 0;
  Kind kind = Kind::distribution;
  Distribution distribution = Distribution::uniform01;
  float lo = 0, hi = 0;
  std::uint32_t salt = 0, sign_salt = 0;

  static InputDraw of(int tensor, Distribution d, std::uint32_t salt) { return {tensor, Kind::distribution, d, 0, 0, salt, 0}; }
  static InputDraw uniform(int tensor, float lo, float hi, std::uint32_t salt) {
    return {tensor, Kind::uniform, Distribution::uniform01, lo, hi, salt, 0};
  }
  static InputDraw signed_uniform(int tensor, float lo, float hi, std::uint32_t salt, std::uint32_t sign_salt) {
    return {tensor, Kind::signed_uniform, Distribution::uniform01, lo, hi, salt, sign_salt};
  }

  // Element i before `special`'s plants and the rounding to storage.
  NB_HD float value(std::uint64_t seed, std::uint64_t i, DType storage) const {
    switch (kind) {
      case Kind::distribution: return static_cast<float>(element_draw::sample(distribution, seed, salt, i, storage));
      case Kind::uniform: return element_draw::uniform(lo, hi, seed, salt, i);
      case Kind::signed_uniform: {
        const float magnitude = element_draw::uniform(lo, hi, seed, salt, i);
        return element_draw::uniform(-1.0f, 1.0f, seed, sign_salt, i) < 0 ? -magnitude : magnitude;
      }
    }
    return 0;
  }
  bool plants_specials() const { return kind == Kind::distribution && distribution == Distribution::special; }
  // The element rule is a plain uniform (a hash and a multiply), not Box-Muller's log and cos or
  // `wide`'s 10^x (tens of nanoseconds an element on a host core).
  bool uniform() const { return kind != Kind::distribution || distribution == Distribution::uniform01; }
};

// Every declared draw into the host copies (sized already), specials planted; the rounding to
// storage is draw_stored_inputs'.
void draw_declared(const std::vector<InputDraw>& draws, std::uint64_t seed, const std::vector<TensorDecl>& decls,
                   HostTensors& host);

// The NaN/Inf a draw plants in a tensor of `elements` (none unless it draws `special`): position ->
// value, a later plant at the same place having overwritten an earlier one.
std::unordered_map<std::int64_t, float> planted_specials(const InputDraw& draw, std::uint64_t seed, std::int64_t elements);

// Element `index` of the drawn tensor as its storage holds it: what the device holds there (the
// audit's redraw of sampled elements).
float stored_draw(const InputDraw& draw, std::uint64_t seed, DType storage, std::int64_t index,
                  const std::unordered_map<std::int64_t, float>& planted);

}  // namespace nb
