#pragma once
// NumPy's .npy format (format versions 1.0 to 3.0), for the float32 and float64 arrays that the
// PyTorch bridge exchanges (normbench dump / check): little-endian, C order. Anything else in a
// file is a UsageError that names the file and what it holds.
#include <cstdint>
#include <string>
#include <vector>

namespace nb {

struct NpyArray {
  std::string descr;                 // "<f4" or "<f8"
  std::vector<std::int64_t> shape;   // () for a scalar
  std::vector<double> values;        // converted to double, C order

  std::int64_t elements() const;
};

// The element count of `shape`; throws UsageError naming `path` when a dimension is negative or the
// product does not fit in 63 bits.
std::int64_t checked_elements(const std::vector<std::int64_t>& shape, const std::string& path);

// Writes a version 1.0 file with the header padded to 64 bytes, as numpy.save does, atomically
// (write_file_atomically): a failed write leaves no partial file.
void write_npy_f32(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<float>& values);
void write_npy_f64(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<double>& values);

// Reads a file; a path that is not a readable regular file (missing, a FIFO, a folder, no
// permission) is a UsageError saying which before it is opened, and a shape with a negative or
// overflowing dimension, or more values than the file holds, one before anything is allocated.
NpyArray read_npy(const std::string& path);

}  // namespace nb
