// Source archives (tar in every compression libarchive reads, zip) extracted
// into a temporary directory: nothing is ever written outside the
// destination, no link inside it points outside, and a refused archive
// leaves no destination at all.
#include "build/archive.hpp"
#include "fuzz_common.hpp"

namespace {
namespace fs = std::filesystem;

// Whether `path`, resolved lexically against `dest`, stays inside it.
bool inside(const fs::path& dest, const fs::path& path) {
  const fs::path normal = (path.is_absolute() ? path : dest / path).lexically_normal();
  const auto rel = normal.lexically_relative(dest);
  return !rel.empty() && *rel.begin() != "..";
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path work = flashfit::fuzz::scratch() / "work";
  const fs::path archive = work / "source.tar.gz";  // libarchive detects the real format
  const fs::path dest = work / "dest";
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::create_directories(work);
  flashfit::fuzz::write_file(archive, flashfit::fuzz::as_text(data, size));

  flashfit::build::ExtractLimits limits;
  limits.max_entries = 256;
  limits.max_entry_bytes = 1 << 20;
  limits.max_total_bytes = 4 << 20;
  auto root = flashfit::build::extract_archive(archive, dest, limits);
  if (root) {
    FUZZ_CHECK(*root == dest || root->parent_path() == dest, "root outside: " + root->string());
  } else {
    FUZZ_CHECK(!fs::exists(dest, ec), "a refused archive left " + dest.string());
  }
  // Only the archive and the destination in `work`, and every link inside the
  // destination resolves inside it.
  for (auto it = fs::recursive_directory_iterator(work); it != fs::recursive_directory_iterator();
       ++it) {
    const fs::path& p = it->path();
    if (p.parent_path() == work) {
      FUZZ_CHECK(p == archive || p == dest, "written beside the destination: " + p.string());
    }
    if (it->is_symlink()) {
      it.disable_recursion_pending();
      const fs::path target = fs::read_symlink(p, ec);
      FUZZ_CHECK(inside(dest, p.parent_path() / target),
                 "a link leaves: " + p.string() + " -> " + target.string());
    }
  }
  // Nothing appeared above the work directory either (a "../" entry): the
  // scratch directory holds `work` alone.
  for (const auto& item : fs::directory_iterator(work.parent_path())) {
    FUZZ_CHECK(item.path() == work, "written above the work directory: " + item.path().string());
  }
  fs::remove_all(work, ec);
  return 0;
}
