// Fuzz target: the input as a .npy file, read as `normbench check` reads one (read_npy). An array
// it accepts holds as many values as its shape says, and writes back (write_npy_f32 / _f64) to a
// file that reads as the same array. A UsageError is the expected refusal; anything else thrown,
// a crash, a broken property or a sanitizer report is a finding.
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_support.hpp"
#include "harness/errors.hpp"
#include "harness/npy/npy_file.hpp"

namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Writes `array` in its own element type and reads it back.
nb::NpyArray written_and_read(const nb::NpyArray& array, const std::string& path) {
  if (array.descr == "<f4") nb::write_npy_f32(path, array.shape, std::vector<float>(array.values.begin(), array.values.end()));
  else nb::write_npy_f64(path, array.shape, array.values);
  return nb::read_npy(path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static nb::fuzz::InputFile input("input.npy");
  static nb::fuzz::InputFile output("written.npy");
  nb::NpyArray array;
  try {
    array = nb::read_npy(input.write(data, size));
  } catch (const nb::UsageError&) {
    return 0;
  }
  nb::fuzz::require(array.descr == "<f4" || array.descr == "<f8", "an accepted array is float32 or float64");
  nb::fuzz::require(static_cast<std::int64_t>(array.values.size()) == array.elements(),
                    "an accepted array holds as many values as its shape says");
  const nb::NpyArray again = written_and_read(array, output.path());
  nb::fuzz::require(again.descr == array.descr && again.shape == array.shape, "a written array reads back its dtype and shape");
  nb::fuzz::require(same_bits(again.values, array.values), "a written array reads back its values bit for bit");
  return 0;
}
