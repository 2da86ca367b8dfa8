// The corpus replay under the normal build: a fuzz target's LLVMFuzzerTestOneInput on every file
// given and every file below the folders given, so that every kept input (each finding's among
// them) runs in CTest. A thrown exception fails the replay naming the file; a broken property
// aborts after the file's name is printed.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::string> corpus_files(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::filesystem::is_regular_file(argv[i])) files.push_back(argv[i]);
    else
      for (const auto& entry : std::filesystem::recursive_directory_iterator(argv[i]))
        if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_FOLDER_OR_FILE...\n";
    return 2;
  }
  const std::vector<std::string> files = corpus_files(argc, argv);
  if (files.empty()) {
    std::cerr << "no corpus files below the given folders\n";
    return 1;
  }
  int failed = 0;
  for (const std::string& file : files) {
    std::cout << file << std::endl;
    std::ifstream in(file, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& e) {
      std::cerr << file << ": " << e.what() << "\n";
      ++failed;
    }
  }
  std::cout << "replayed " << files.size() << " inputs, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
