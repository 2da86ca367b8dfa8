#include "harness/files/gzip_inflate.hpp"

#include <zlib.h>

#include <algorithm>
#include <new>
#include <vector>

#include "harness/errors.hpp"

namespace nb {
namespace {

// zlib counts bytes in 32-bit uInt: the input goes in, and the output comes out, in pieces.
constexpr std::size_t kInputPiece = std::size_t(1) << 20;
constexpr std::size_t kOutputPiece = std::size_t(256) << 10;

// 16 + MAX_WBITS: a gzip header and trailer (CRC-32 and length, both checked) around the deflate
// data; a zlib or raw deflate stream is refused as a bad header.
constexpr int kGzipWindowBits = 16 + MAX_WBITS;

// A z_stream set up for inflating gzip data, ended however the reading ends.
class GzipInflater {
 public:
  GzipInflater() {
    if (inflateInit2(&stream_, kGzipWindowBits) != Z_OK) throw std::bad_alloc();
  }
  ~GzipInflater() { inflateEnd(&stream_); }
  GzipInflater(const GzipInflater&) = delete;
  GzipInflater& operator=(const GzipInflater&) = delete;
  z_stream* operator->() { return &stream_; }
  z_stream* get() { return &stream_; }

 private:
  z_stream stream_{};
};

// "1024 MiB" for a whole number of MiB, else "<n> bytes".
std::string size_text(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t(1) << 20;
  return bytes % kMiB == 0 && bytes > 0 ? std::to_string(bytes / kMiB) + " MiB" : std::to_string(bytes) + " bytes";
}

// zlib's message for a failed inflate, or its status code when it gave none.
std::string zlib_reason(const z_stream& stream, int status) {
  return stream.msg != nullptr ? std::string(stream.msg) : "zlib status " + std::to_string(status);
}

}  // namespace

bool starts_with_gzip_magic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string inflate_gzip(std::string_view compressed, const std::string& origin, std::size_t max_bytes) {
  GzipInflater inflater;
  std::vector<unsigned char> piece(kOutputPiece);
  std::string inflated;
  std::size_t fed = 0;  // bytes of `compressed` handed to zlib so far
  for (;;) {
    if (inflater->avail_in == 0 && fed < compressed.size()) {
      const std::size_t size = std::min(kInputPiece, compressed.size() - fed);
      // zlib does not write its input; the cast drops only the const its C interface lacks.
      inflater->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + fed));
      inflater->avail_in = static_cast<uInt>(size);
      fed += size;
    }
    inflater->next_out = piece.data();
    inflater->avail_out = static_cast<uInt>(piece.size());
    const int status = inflate(inflater.get(), Z_NO_FLUSH);
    if (status == Z_MEM_ERROR) throw std::bad_alloc();
    if (status == Z_DATA_ERROR || status == Z_NEED_DICT || status == Z_STREAM_ERROR)
      throw UsageError(origin + ": corrupt gzip data (" + zlib_reason(*inflater.get(), status) + ")");
    // Z_BUF_ERROR: no progress could be made, which with a fresh output piece means no input is left.
    if (status == Z_BUF_ERROR)
      throw UsageError(origin + ": truncated gzip data (the file ends before the gzip stream does)");
    const std::size_t produced = piece.size() - inflater->avail_out;
    if (produced > max_bytes - inflated.size())
      throw UsageError(origin + ": inflates to more than " + size_text(max_bytes) +
                       ", the most normbench takes from one compressed file; refused (a gzip bomb?)");
    inflated.append(reinterpret_cast<const char*>(piece.data()), produced);
    if (status != Z_STREAM_END) continue;
    const std::string_view rest = compressed.substr(fed - inflater->avail_in);
    if (rest.empty()) return inflated;
    if (!starts_with_gzip_magic(rest))
      throw UsageError(origin + ": " + std::to_string(rest.size()) + " bytes after the gzip data that are not gzip data");
    inflateReset(inflater.get());  // another member follows
  }
}

}  // namespace nb
