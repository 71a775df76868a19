#pragma once
// Shared helpers of the libFuzzer harnesses (tests/fuzz/*_fuzz.cpp): the
// input as text, invariant checks that abort with a message (libFuzzer then
// keeps the input as a crash), and one scratch directory per process for the
// parsers that read files.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace flashfit::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// An invariant broke: print what and abort, so libFuzzer saves the input.
[[noreturn]] inline void violated(const char* file, int line, const char* what,
                                  const std::string& detail) {
  std::fprintf(stderr, "\n%s:%d: invariant violated: %s\n%s\n", file, line, what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_CHECK(cond, detail)                                                  \
  do {                                                                            \
    if (!(cond)) ::flashfit::fuzz::violated(__FILE__, __LINE__, #cond, (detail)); \
  } while (0)

// A private directory for this process, removed at exit. Under /dev/shm when
// there is one: the file-reading harnesses write one file per input.
class ScratchDir {
 public:
  ScratchDir() {
    std::error_code ec;
    std::filesystem::path base = "/dev/shm";
    if (!std::filesystem::is_directory(base, ec) || ::access(base.c_str(), W_OK) != 0) {
      const char* tmp = std::getenv("TMPDIR");
      base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    std::string pattern = (base / "flashfit-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The process's scratch directory (created on first use).
inline const std::filesystem::path& scratch() {
  static ScratchDir dir;
  return dir.path();
}

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::abort();
  }
}

// An absolute http(s) or file URL (the scheme in any case, as RFC 3986 allows).
inline bool fetchable_url(std::string_view url) {
  std::string head(url.substr(0, 8));
  for (char& c : head) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return head.rfind("http://", 0) == 0 || head.rfind("https://", 0) == 0 ||
         head.rfind("file:", 0) == 0;
}

// The input cut at every "\n--\n" (the dictionaries hold the separator):
// harnesses that read several files take one piece per file.
inline std::vector<std::string_view> split_parts(std::string_view text, std::size_t max_parts) {
  std::vector<std::string_view> parts;
  constexpr std::string_view sep = "\n--\n";
  while (parts.size() + 1 < max_parts) {
    const auto at = text.find(sep);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + sep.size());
  }
  parts.push_back(text);
  return parts;
}

}  // namespace flashfit::fuzz
