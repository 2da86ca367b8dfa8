#pragma once
// What the fuzz targets share: the input as a file (the loaders take paths, as the commands give
// them), and a broken property that ends the run as a crash does, so libFuzzer keeps the input.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace nb::fuzz {

// A file named `name` in a folder of this process under the temp folder (libFuzzer's -jobs and
// -fork run several processes); removed with the object, and the folder with the last one.
class InputFile {
 public:
  explicit InputFile(const std::string& name)
      : folder_(std::filesystem::temp_directory_path() / ("normbench-fuzz-" + std::to_string(::getpid()))),
        path_((folder_ / name).string()) {
    std::filesystem::create_directories(folder_);
  }
  ~InputFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
    std::filesystem::remove(folder_, ignored);  // fails while another file is in it
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // Replaces the file's content with the input's bytes; returns its path.
  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::ofstream(path_, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                    static_cast<std::streamsize>(size));
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::filesystem::path folder_;
  std::string path_;
};

// The input as a command-line argument: argv ends at the first NUL byte.
inline std::string argument_text(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  return bytes.substr(0, bytes.find('\0'));
}

// Stops the run when a property the code promises does not hold.
inline void require(bool holds, const std::string& property) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property broken: %s\n", property.c_str());
  std::abort();
}

}  // namespace nb::fuzz
