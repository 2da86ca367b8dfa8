#include "harness/npy/npy_file.hpp"

#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "harness/errors.hpp"
#include "harness/files/file_kind.hpp"
#include "harness/files/atomic_write.hpp"
#include "harness/tensors.hpp"

namespace nb {
namespace {

const char kMagic[] = "\x93NUMPY";

std::string header_text(const std::string& descr, const std::vector<std::int64_t>& shape) {
  std::string dims;
  for (std::size_t i = 0; i < shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) dims += ",";
  std::string h = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const std::size_t unpadded = 6 + 2 + 2 + h.size() + 1;  // magic, version, length, text, newline
  h.append((64 - unpadded % 64) % 64, ' ');
  return h + "\n";
}

// The whole file is assembled first and written atomically: a full disk or a killed process
// leaves the old file or none, never a truncated array that a reader would take for data.
template <class T>
void write_npy(const std::string& path, const std::string& descr, const std::vector<std::int64_t>& shape,
               const std::vector<T>& values) {
  const std::int64_t count = checked_elements(shape, path);
  if (count != static_cast<std::int64_t>(values.size()))
    throw UsageError(path + ": shape holds " + std::to_string(count) + " values, given " + std::to_string(values.size()));
  const std::string header = header_text(descr, shape);
  const std::uint16_t length = static_cast<std::uint16_t>(header.size());
  std::string file;
  file.reserve(10 + header.size() + values.size() * sizeof(T));
  file.append(kMagic, 6);
  file += {'\x01', '\x00', static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  file += header;
  file.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  write_file_atomically(path, file);
}

// The value of `key` in the header's dict, as text: "'<f4'", "False", "(3, 4)".
std::string header_value(const std::string& header, const std::string& key, const std::string& path) {
  const auto at = header.find("'" + key + "'");
  if (at == std::string::npos) throw UsageError(path + ": .npy header has no '" + key + "'");
  auto colon = header.find(':', at);
  auto start = header.find_first_not_of(' ', colon + 1);
  if (colon == std::string::npos || start == std::string::npos) throw UsageError(path + ": malformed .npy header");
  std::size_t end = header[start] == '(' ? header.find(')', start) + 1 : header.find_first_of(",}", start);
  if (end == std::string::npos || end == 0) throw UsageError(path + ": malformed .npy header");
  return header.substr(start, end - start);
}

// The dims of a shape text "(3, 4)": each a whole number >= 0, their product (the element count)
// below 2^63.
std::vector<std::int64_t> parse_shape(const std::string& text, const std::string& path) {
  std::vector<std::int64_t> shape;
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') throw UsageError(path + ": bad shape " + text);
  std::string inner = text.substr(1, text.size() - 2);
  std::stringstream parts(inner);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const auto first = part.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    const auto last = part.find_last_not_of(' ');
    const std::string digits = part.substr(first, last - first + 1);
    std::int64_t dim = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), dim);
    if (error != std::errc() || end != digits.data() + digits.size() || dim < 0)
      throw UsageError(path + ": bad shape " + text + ": '" + digits + "' is not a dimension (a whole number >= 0)");
    shape.push_back(dim);
  }
  checked_elements(shape, path);
  return shape;
}

}  // namespace

std::int64_t checked_elements(const std::vector<std::int64_t>& shape, const std::string& path) {
  std::int64_t n = 1;
  for (auto d : shape) {
    if (d < 0) throw UsageError(path + ": shape " + format_dims(shape) + " has a negative dimension");
    if (__builtin_mul_overflow(n, d, &n))
      throw UsageError(path + ": shape " + format_dims(shape) + " holds more than 2^63 elements");
  }
  return n;
}

std::int64_t NpyArray::elements() const { return checked_elements(shape, "a .npy array"); }

void write_npy_f32(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<float>& values) {
  write_npy(path, "<f4", shape, values);
}

void write_npy_f64(const std::string& path, const std::vector<std::int64_t>& shape, const std::vector<double>& values) {
  write_npy(path, "<f8", shape, values);
}

NpyArray read_npy(const std::string& path) {
  if (std::string why = why_not_a_readable_file(path, ".npy"); !why.empty()) throw UsageError(path + ": " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot open it");
  char magic[8] = {};
  in.read(magic, 8);
  if (!in || std::memcmp(magic, kMagic, 6) != 0) throw UsageError(path + ": not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t length = 0;
  unsigned char bytes[4] = {};
  if (major == 1) {
    in.read(reinterpret_cast<char*>(bytes), 2);
    length = bytes[0] | bytes[1] << 8;
  } else if (major == 2 || major == 3) {
    in.read(reinterpret_cast<char*>(bytes), 4);
    length = bytes[0] | bytes[1] << 8 | bytes[2] << 16 | std::uint32_t(bytes[3]) << 24;
  } else {
    throw UsageError(path + ": .npy format version " + std::to_string(major) + " is not one of 1, 2, 3");
  }
  const auto header_start = in.tellg();
  in.seekg(0, std::ios::end);
  const auto after_header = static_cast<std::uint64_t>(in.tellg() - header_start);
  in.seekg(header_start);
  if (!in || length > after_header) throw UsageError(path + ": truncated .npy header");
  std::string header(length, '\0');
  in.read(header.data(), length);
  if (!in) throw UsageError(path + ": truncated .npy header");
  NpyArray a;
  const std::string descr = header_value(header, "descr", path);
  a.descr = descr.size() >= 2 ? descr.substr(1, descr.size() - 2) : descr;
  if (header_value(header, "fortran_order", path) != "False")
    throw UsageError(path + ": Fortran-ordered array; save a C-contiguous one (np.ascontiguousarray)");
  a.shape = parse_shape(header_value(header, "shape", path), path);
  const std::size_t n = static_cast<std::size_t>(checked_elements(a.shape, path));
  if (a.descr != "<f4" && a.descr != "<f8")
    throw UsageError(path + ": dtype " + a.descr + " is not float32 (<f4) or float64 (<f8)");
  // The shape against the bytes the file holds, before anything is allocated for it.
  const std::size_t element_bytes = a.descr == "<f4" ? sizeof(float) : sizeof(double);
  const auto data_start = in.tellg();
  in.seekg(0, std::ios::end);
  const auto data_bytes = static_cast<std::uint64_t>(in.tellg() - data_start);
  in.seekg(data_start);
  if (!in || n > data_bytes / element_bytes)
    throw UsageError(path + ": shape " + format_dims(a.shape) + " needs " + std::to_string(n) + " values, the file holds " +
                     std::to_string(data_bytes / element_bytes));
  if (a.descr == "<f4") {
    std::vector<float> raw(n);
    in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(n * sizeof(float)));
    a.values.assign(raw.begin(), raw.end());
  } else if (a.descr == "<f8") {
    a.values.resize(n);
    in.read(reinterpret_cast<char*>(a.values.data()), static_cast<std::streamsize>(n * sizeof(double)));
  }
  if (!in) throw UsageError(path + ": holds fewer values than its shape says");
  return a;
}

}  // namespace nb
