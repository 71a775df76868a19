#include "cli/common.hpp"

#include <cstdio>

#include "util/paths.hpp"
#include "util/verbosity.hpp"

namespace flashfit::cli {
namespace {
std::string* captured_stdout = nullptr;
}  // namespace

StdoutCapture::StdoutCapture(std::string& into) : previous_(captured_stdout) {
  captured_stdout = &into;
}
StdoutCapture::~StdoutCapture() {
  captured_stdout = previous_;
}

void write_stdout(std::string_view text) {
  if (captured_stdout) {
    captured_stdout->append(text);
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void note(std::string_view line) {
  if (util::quiet()) return;
  std::fprintf(stderr, "flashfit: %.*s\n", static_cast<int>(line.size()), line.data());
}

std::filesystem::path wheel_extraction_dir() {
  if (auto root = util::cache_root()) {
    const std::filesystem::path dir = *root / "tmp";
    if (util::ensure_cache_dir(*root, dir)) return dir;
  }
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  return ec ? std::filesystem::path("/tmp") : tmp;
}

}  // namespace flashfit::cli
