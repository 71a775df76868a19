#include "workflow/publish_inspect.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

#include "binary/inspect.hpp"
#include "binary/wheel_bytes.hpp"
#include "binary/wheel_rewrite.hpp"
#include "pkg/variant.hpp"
#include "pkg/wheel_name.hpp"
#include "util/hashing_copy.hpp"
#include "util/sha256.hpp"
#include "util/unique_fd.hpp"
#include "workflow/publish_plan.hpp"

namespace flashfit::workflow {
namespace {

namespace fs = std::filesystem;

// The inspect checks about the wheel itself: they need no interpreter, torch or GPU.
constexpr std::string_view kTargetFreeChecks[] = {"record", "wheel"};

// Wheels up to this size are read into memory once: the file's sha256,
// inspection (libzip reads the same bytes) and the put all use that read.
// Larger ones are hashed from the file and inspected from it.
constexpr std::uint64_t kInMemoryMax = std::uint64_t{32} << 20;
// Bytes held for the puts across all candidates; past it a candidate's bytes
// are let go after its inspection and its put reads the file again.
constexpr std::uint64_t kHeldBudget = std::uint64_t{512} << 20;

struct WheelRead {
  std::string sha256;
  std::uint64_t size = 0;
  std::shared_ptr<const binary::WheelBytes> bytes;  // null: read from the file
};

std::optional<std::string> stream_sha256(int fd, std::uint64_t& size) {
  util::Sha256 hash;
  // Not zeroed (a vector's 1 MiB memset per wheel was ~5% of a publish's CPU).
  constexpr std::size_t kBuffer = std::size_t{1} << 20;
  const auto buffer = std::make_unique_for_overwrite<char[]>(kBuffer);
  size = 0;
  while (true) {
    const ssize_t n = ::read(fd, buffer.get(), kBuffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    hash.update(buffer.get(), static_cast<std::size_t>(n));
    size += static_cast<std::uint64_t>(n);
  }
  return util::to_hex(hash.finish());
}

// Reads all of `fd` into `bytes` (sized for one byte more than the file
// had): false on a read error or when the file grew while it was read.
bool read_whole(int fd, binary::WheelBytes& bytes, std::size_t capacity) {
  bytes.size = 0;
  while (bytes.size < capacity) {
    const ssize_t n = ::read(fd, bytes.data.get() + bytes.size, capacity - bytes.size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    bytes.size += static_cast<std::size_t>(n);
  }
  return false;  // more than fstat said: being written to
}

std::optional<WheelRead> read_wheel(const fs::path& path) {
  util::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat info {};
  if (!fd || ::fstat(fd.get(), &info) != 0) return std::nullopt;
  WheelRead out;
  if (S_ISREG(info.st_mode) && static_cast<std::uint64_t>(info.st_size) <= kInMemoryMax) {
    auto bytes = std::make_shared<binary::WheelBytes>();
    const auto capacity = static_cast<std::size_t>(info.st_size) + 1;
    bytes->data = std::make_unique_for_overwrite<char[]>(capacity);
    if (read_whole(fd.get(), *bytes, capacity)) {
      out.size = bytes->size;
      out.sha256 = util::to_hex(util::sha256(bytes->view()));
      out.bytes = std::move(bytes);
      return out;
    }
    if (::lseek(fd.get(), 0, SEEK_SET) != 0) return std::nullopt;
  }
  auto sha = stream_sha256(fd.get(), out.size);
  if (!sha) return std::nullopt;
  out.sha256 = std::move(*sha);
  return out;
}

// A wheel's copy in the stage directory, under the wheel's own file name
// (what inspection reads the name from): a file of its own (mode 0644 less
// the umask, as a put's temp file), written from the bytes as they are read
// and hashed. Unreadable: the wheel could not be read (a refusal);
// unwritable: the copy could not be written, or a copy of that name is there
// already (two inputs of one name): the caller reads the wheel into memory.
struct StagedCopy {
  fs::path path;
  std::string sha256;
  std::uint64_t size = 0;
};
enum class StageFailure { unreadable, unwritable };

tl::expected<StagedCopy, StageFailure> stage_copy(const fs::path& wheel, const fs::path& dir) {
  util::UniqueFd in(::open(wheel.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in) return tl::unexpected(StageFailure::unreadable);
  StagedCopy out;
  out.path = dir / wheel.filename();
  util::UniqueFd copy(::open(out.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!copy) return tl::unexpected(StageFailure::unwritable);
  auto fail = [&](StageFailure why) {
    copy.reset();
    ::unlink(out.path.c_str());
    return tl::unexpected(why);
  };
  auto copied = util::copy_hashing(in.get(), copy.get());
  if (!copied)
    return fail(copied.error().reading ? StageFailure::unreadable : StageFailure::unwritable);
  // Its writeback starts now; the put's flush() makes it durable (syncfs).
  ::sync_file_range(copy.get(), 0, 0, SYNC_FILE_RANGE_WRITE);
  if (::close(copy.release()) != 0) return fail(StageFailure::unwritable);
  out.sha256 = std::move(copied->sha256);
  out.size = copied->size;
  return out;
}

void add_unique(std::vector<int>& v, int x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

// Module facts: the C++ ABI its symbols use, the CUDA runtime it links, kernels.
void read_modules(const binary::InspectReport& report, WheelFacts& f,
                  std::optional<bool>& symbol_abi) {
  bool abi_conflict = false;
  for (const auto& m : report.modules) {
    if (m.abi.abi != binary::CxxAbi::unknown) {
      const bool cxx11 = m.abi.abi == binary::CxxAbi::cxx11;
      if (symbol_abi && *symbol_abi != cxx11) abi_conflict = true;
      symbol_abi = cxx11;
    }
    for (const auto& needed : m.elf.needed) {
      if (auto major = cudart_major(needed)) {
        f.uses_cuda = true;
        f.cuda_major = major;
      }
      if (needed.rfind("libc10_cuda.so", 0) == 0 || needed.rfind("libtorch_cuda.so", 0) == 0)
        f.uses_cuda = true;
    }
    for (const auto& e : m.fatbin) {
      f.uses_cuda = true;
      // PTX of an `a`/`f` arch (compute_90a, compute_100f) is compiled for that
      // GPU or its family only, never for newer ones: counted with the SASS.
      const bool specific = e.variant != binary::ArchVariant::none;
      if (e.kind == binary::FatbinKind::cubin || (e.kind == binary::FatbinKind::ptx && specific))
        add_unique(f.sass_archs, e.arch);
      if (e.kind == binary::FatbinKind::ptx && !specific) add_unique(f.ptx_archs, e.arch);
    }
  }
  if (abi_conflict) symbol_abi.reset();
  std::sort(f.sass_archs.begin(), f.sass_archs.end());
  std::sort(f.ptx_archs.begin(), f.ptx_archs.end());
}

}  // namespace

// Upstream's trap: the file name has a local label METADATA lacks. A copy whose
// METADATA (and RECORD row) say the file name's version installs through pip;
// its record keeps the original sha256.
PublishCandidate rewritten_for_pip(const PublishCandidate& original, const std::string& version,
                                   const fs::path& temp_dir) {
  PublishCandidate c = original;
  c.staged.clear();  // the caller's, removed by it
  std::string pattern = (temp_dir / "flashfit-publish-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    c.refusal = "cannot create a temporary directory to rewrite METADATA";
    return c;
  }
  const fs::path dir = pattern;
  const fs::path copy = dir / original.facts.filename;
  // From the copy inspection made when there is one: the bytes hashed as
  // original_sha256, whatever the input file became since.
  const fs::path& from = original.staged.empty() ? original.path : original.staged;
  if (auto done = binary::rewrite_metadata_version(from, copy, version); !done) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    c.refusal =
        fmt::format("its METADATA version differs from its file name and cannot be rewritten: {}",
                    done.error().message);
    return c;
  }
  PublishCandidate out = inspect_for_publish(copy, temp_dir);
  out.facts.original_sha256 = original.facts.sha256;
  out.owned_dir = dir;
  return out;
}

std::optional<int> cudart_major(std::string_view needed) {
  constexpr std::string_view kPrefix = "libcudart.so.";
  if (needed.rfind(kPrefix, 0) != 0) return std::nullopt;
  const auto rest = needed.substr(kPrefix.size());
  int major = 0;
  const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), major);
  if (ec != std::errc{} || ptr == rest.data()) return std::nullopt;
  return major;
}

std::string requires_python_of(std::string_view metadata) {
  std::size_t pos = 0;
  while (pos < metadata.size()) {
    auto end = metadata.find('\n', pos);
    if (end == std::string_view::npos) end = metadata.size();
    std::string_view line = metadata.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    constexpr std::string_view kKey = "requires-python:";
    if (line.size() > kKey.size()) {
      std::string head(line.substr(0, kKey.size()));
      std::transform(head.begin(), head.end(), head.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (head == kKey) {
        auto value = line.substr(kKey.size());
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
          value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
          value.remove_suffix(1);
        return std::string(value);
      }
    }
    pos = end + 1;
  }
  return {};
}

PublishCandidate inspect_for_publish(const fs::path& wheel, const fs::path& temp_dir,
                                     const fs::path& stage_dir) {
  PublishCandidate c;
  c.path = wheel;
  auto& f = c.facts;
  f.filename = wheel.filename().string();
  f.source = "file";
  auto name = pkg::parse_wheel_filename(f.filename);
  if (!name) {
    c.refusal = fmt::format("not a wheel file name: {}", name.error().message);
    return c;
  }
  f.project = name->canonical_name;
  f.version = name->version.str();
  if (!name->tags.empty()) {
    f.python_tag = name->tags.front().interpreter;
    f.platform_tag = name->tags.front().platform;
  }
  if (!stage_dir.empty()) {
    auto staged = stage_copy(wheel, stage_dir);
    if (!staged && staged.error() == StageFailure::unreadable) {
      c.refusal = "cannot read the file";
      return c;
    }
    if (staged) {
      f.sha256 = std::move(staged->sha256);
      f.size = staged->size;
      c.staged = std::move(staged->path);
    }
  }
  if (c.staged.empty()) {
    auto read = read_wheel(wheel);
    if (!read) {
      c.refusal = "cannot read the file";
      return c;
    }
    f.sha256 = std::move(read->sha256);
    f.size = read->size;
    c.bytes = std::move(read->bytes);
  }

  // Opened once: METADATA below, inspection after. A staged copy is what is
  // published, so it is what is inspected.
  auto opened = c.bytes            ? binary::open_wheel_bytes(wheel, c.bytes)
                : c.staged.empty() ? binary::open_wheel(wheel)
                                   : binary::open_wheel(c.staged);
  if (!opened) {
    c.refusal = opened.error().message;
    return c;
  }
  auto metadata = opened->read_member(opened->dist_info() + "/METADATA", std::uint64_t{16} << 20);
  if (!metadata) {
    c.refusal = fmt::format("cannot read METADATA: {}", metadata.error().message);
    return c;
  }
  c.metadata = std::move(*metadata);
  f.metadata_version = opened->metadata().version;
  f.metadata_name = opened->metadata().name;
  if (auto v = pkg::Version::parse(f.metadata_version)) f.metadata_version = v->str();
  f.requires_python = requires_python_of(c.metadata);
  // Upstream's trap: METADATA says the file name's version without its label.
  if (!same_version(f.version, f.metadata_version) && name->version.has_local() &&
      same_version(name->version.without_local().str(), f.metadata_version)) {
    PublishCandidate rewritten = rewritten_for_pip(c, name->version.str(), temp_dir);
    if (!c.staged.empty()) {  // the rewritten copy is published instead
      std::error_code ec;
      fs::remove(c.staged, ec);
    }
    return rewritten;
  }

  binary::InspectOptions options;
  options.temp_dir = temp_dir;
  auto report = binary::inspect_opened_wheel(*opened, binary::LoadHost{}, options);
  if (!report) {
    c.refusal = report.error().message;
    return c;
  }
  for (const auto& check : report->checks) {
    const bool target_free = std::find(std::begin(kTargetFreeChecks), std::end(kTargetFreeChecks),
                                       check.id) != std::end(kTargetFreeChecks);
    if (target_free && check.status == binary::CheckStatus::fail) {
      c.refusal = fmt::format("inspect check '{}' failed: {}", check.id, check.summary);
      return c;
    }
  }
  std::optional<bool> symbol_abi;
  read_modules(*report, f, symbol_abi);
  const auto label = pkg::decode_variant(name->version.local());
  if (label.torch) {
    f.torch_major = label.torch->major;
    f.torch_minor = label.torch->minor;
  }
  if (label.cuda) {
    f.uses_cuda = true;
    if (!f.cuda_major) {
      f.cuda_major = label.cuda->major;
      f.cuda_minor = label.cuda->minor;
    }
  }
  // Symbols first: the label is only the build matrix's claim (docs/background.md §14).
  f.cxx11_abi = symbol_abi ? symbol_abi : label.cxx11_abi;
  return c;
}

std::vector<PublishCandidate> inspect_all_for_publish(
    const std::vector<fs::path>& wheels, const fs::path& temp_dir,
    const std::function<void(std::string_view)>& progress, std::string_view note, unsigned threads,
    const StagePlan& stage) {
  if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, wheels.size()));
  std::vector<PublishCandidate> out(wheels.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::uint64_t> held{0};
  std::mutex say;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < wheels.size();) {
        if (progress) {
          std::lock_guard lock(say);
          progress(fmt::format("inspecting {}{}", wheels[i].filename().string(), note));
        }
        const bool present = std::binary_search(stage.present.begin(), stage.present.end(),
                                                wheels[i].filename().string());
        out[i] = inspect_for_publish(wheels[i], temp_dir, present ? fs::path{} : stage.dir);
        // A refused wheel's copy and bytes are never put; past the budget the put reads the file.
        if (PublishCandidate& c = out[i]; c.refusal && !c.staged.empty()) {
          std::error_code ec;
          fs::remove(c.staged, ec);
          c.staged.clear();
        }
        if (PublishCandidate& c = out[i]; c.bytes) {
          const std::uint64_t n = c.bytes->size;
          if (c.refusal || held.fetch_add(n) + n > kHeldBudget) {
            if (!c.refusal) held.fetch_sub(n);
            c.bytes.reset();
          }
        }
      }
    } catch (...) {  // (bad_alloc) rethrown on the caller's thread below
      std::lock_guard lock(say);
      if (!failure) failure = std::current_exception();
      next = wheels.size();
    }
  };
  {
    std::vector<std::jthread> helpers;
    try {
      for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(work);
    } catch (const std::system_error&) {
      // No thread to be had (a pids limit): the ones started and this one
      // inspect every wheel all the same.
    }
    work();
  }  // joined
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace flashfit::workflow
