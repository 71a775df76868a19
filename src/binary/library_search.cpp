#include "binary/library_search.hpp"

#include <elf.h>
#include <fmt/core.h>

#include <array>
#include <cctype>
#include <cstddef>
#include <fstream>
#include <utility>

#include "util/strings.hpp"

namespace flashfit::binary {

namespace fs = std::filesystem;

namespace {

// ------------------------------------------------------------ candidates

// What ld.so's open_verify makes of a file it is offered.
enum class Verdict {
  absent,  // no such file: try the next place quietly
  accept,
  skip,  // exists but is for another ABI (or unreadable): the search goes on
  stop,  // exists but is no loadable object: the loader fails right here
};

struct Candidate {
  Verdict verdict = Verdict::absent;
  std::string reason;
};

const char* class_name(ElfClass elf_class) {
  return elf_class == ElfClass::elf64 ? "64-bit" : "32-bit";
}

// Reads only the ELF header, as the loader does: a library stripped of its
// section headers loads fine, so read_elf (which needs them) would be
// stricter than ld.so. The checks and their order follow open_verify: the
// wrong class or machine is "not this one, keep looking", everything else
// wrong is an error that ends the load.
Candidate check_candidate(const fs::path& file, const ElfFile& loader) {
  std::error_code error;
  const auto status = fs::status(file, error);
  if (status.type() == fs::file_type::not_found) return {Verdict::absent, {}};
  if (error) return {Verdict::skip, fmt::format("cannot read: {}", error.message())};
  if (status.type() == fs::file_type::directory) {
    return {Verdict::stop, "is a directory (cannot read file data)"};
  }
  // ld.so would open a FIFO or device and block or read whatever comes;
  // flashfit must not hang on a hostile directory, so it passes them over.
  if (status.type() != fs::file_type::regular) return {Verdict::skip, "not a regular file"};
  std::ifstream in(file, std::ios::binary);
  if (!in) return {Verdict::skip, "cannot open"};
  std::array<unsigned char, sizeof(Elf64_Ehdr)> header{};
  in.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header.size()));
  const auto length = static_cast<std::size_t>(in.gcount());
  const bool is64 = loader.elf_class == ElfClass::elf64;
  if (length < (is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr))) {
    return {Verdict::stop, fmt::format("file too short ({} bytes)", length)};
  }
  if (header[EI_MAG0] != ELFMAG0 || header[EI_MAG1] != ELFMAG1 || header[EI_MAG2] != ELFMAG2 ||
      header[EI_MAG3] != ELFMAG3) {
    return {Verdict::stop, "invalid ELF header (not an ELF file)"};
  }
  const ElfClass file_class = header[EI_CLASS] == ELFCLASS64 ? ElfClass::elf64 : ElfClass::elf32;
  if ((header[EI_CLASS] != ELFCLASS32 && header[EI_CLASS] != ELFCLASS64) ||
      file_class != loader.elf_class) {
    return {Verdict::skip, header[EI_CLASS] == ELFCLASS32 || header[EI_CLASS] == ELFCLASS64
                               ? fmt::format("ELF class {}, not {}", class_name(file_class),
                                             class_name(loader.elf_class))
                               : fmt::format("ELF class byte {}", header[EI_CLASS])};
  }
  const unsigned char data = loader.little_endian ? ELFDATA2LSB : ELFDATA2MSB;
  if (header[EI_DATA] != data) {
    return {Verdict::stop, fmt::format("ELF data encoding is not {}-endian",
                                       loader.little_endian ? "little" : "big")};
  }
  if (header[EI_VERSION] != EV_CURRENT) return {Verdict::stop, "unsupported ELF version"};
  if (header[EI_OSABI] != ELFOSABI_SYSV && header[EI_OSABI] != ELFOSABI_GNU) {
    return {Verdict::stop, fmt::format("ELF OS ABI {} is not SYSV or GNU", header[EI_OSABI])};
  }
  // e_type and e_machine sit at the same offsets in both classes.
  const auto half = [&](std::size_t at) {
    return static_cast<std::uint16_t>(loader.little_endian ? header[at] | (header[at + 1] << 8)
                                                           : (header[at] << 8) | header[at + 1]);
  };
  const std::uint16_t machine = half(offsetof(Elf64_Ehdr, e_machine));
  if (machine != loader.machine) {
    ElfFile other;  // only for its machine_name()
    other.machine = machine;
    return {Verdict::skip,
            fmt::format("machine {}, not {}", other.machine_name(), loader.machine_name())};
  }
  const std::uint16_t type = half(offsetof(Elf64_Ehdr, e_type));
  if (type != ET_DYN) {
    return {Verdict::stop, fmt::format("not a shared object (e_type {})", type)};
  }
  return {Verdict::accept, {}};
}

// ------------------------------------------------------------ the search

// The SONAMEs in the preloaded directories, read on first need: most names
// match a file name, and reading every library of torch/lib costs time.
class PreloadedSonames {
 public:
  explicit PreloadedSonames(const std::vector<PreloadedDir>& dirs) : dirs_(dirs) {}

  // The (file, directory index) pairs whose SONAME is `name`.
  std::vector<std::pair<fs::path, std::size_t>> lookup(std::string_view name) {
    if (!index_) build();
    std::vector<std::pair<fs::path, std::size_t>> found;
    for (const auto& entry : *index_) {
      if (entry.soname == name) found.emplace_back(entry.file, entry.dir);
    }
    return found;
  }

 private:
  struct Entry {
    std::string soname;
    fs::path file;
    std::size_t dir;
  };

  void build() {
    index_.emplace();
    for (std::size_t i = 0; i < dirs_.size(); ++i) {
      std::error_code error;
      fs::directory_iterator it(dirs_[i].dir, error);
      for (; !error && it != fs::directory_iterator(); it.increment(error)) {
        // Only what could be a library: a loader matching a SONAME only
        // ever loaded a "*.so*" file, and the rest may be large data files.
        const std::string file_name = it->path().filename().string();
        if (file_name.find(".so") == std::string::npos) continue;
        std::error_code type_error;
        if (!it->is_regular_file(type_error)) continue;
        auto elf = read_elf_dynamic(it->path());
        if (elf && elf->soname) index_->push_back({*elf->soname, it->path(), i});
      }
    }
  }

  const std::vector<PreloadedDir>& dirs_;
  std::optional<std::vector<Entry>> index_;
};

class Search {
 public:
  Search(std::string_view name, const ElfFile& loader, const fs::path& origin_dir,
         const LibrarySearch& config, PreloadedSonames& sonames)
      : loader_(loader), origin_dir_(origin_dir), config_(config), sonames_(sonames) {
    result_.name = std::string(name);
  }

  NeededLibrary run() {
    const std::string& name = result_.name;
    if (name.empty()) {
      note("empty library name");
      return finish();
    }
    if (name.find('/') != std::string::npos) {
      // ld.so expands tokens in a path-like NEEDED too; a relative one is
      // relative to the process's working directory, not to the object.
      auto expanded = expand_search_tokens(name, origin_dir_, config_);
      if (!expanded) {
        note("a token in the path has no known value");
      } else if (offer(*expanded, FoundVia::path_in_name) == Verdict::absent) {
        note(fmt::format("no such file: {}", *expanded));
      }
      return finish();
    }
    // Each step returns true when the search is over: found, or stopped.
    if (preloaded()) return finish();
    if (loader_.runpath.empty() && dirs(loader_.rpath, FoundVia::rpath, origin_dir_)) {
      return finish();
    }
    // $ORIGIN in LD_LIBRARY_PATH is the executable's directory, not the
    // object's; that is not known here, so such an entry is dropped.
    if (dirs(config_.ld_library_path, FoundVia::ld_library_path, {})) return finish();
    if (dirs(loader_.runpath, FoundVia::runpath, origin_dir_)) return finish();
    if (cache()) return finish();
    for (const auto& dir : config_.default_dirs) {
      if (done(offer(dir / name, FoundVia::default_dir))) break;
    }
    return finish();
  }

 private:
  // Tries one file. Returns its verdict; sets the result when the file is
  // taken or stops the search (then stopped_ is set).
  Verdict offer(const fs::path& file, FoundVia via) {
    const Candidate candidate = check_candidate(file, loader_);
    switch (candidate.verdict) {
      case Verdict::absent:
        break;
      case Verdict::accept:
        result_.via = via;
        result_.path = file;
        break;
      case Verdict::skip:
        note(fmt::format("skipped {} ({}): {}", file.string(), to_string(via), candidate.reason));
        break;
      case Verdict::stop:
        // A file already loaded into the process cannot be garbage; one in
        // a preloaded directory that is was simply not what got loaded.
        if (via == FoundVia::preloaded) {
          note(fmt::format("skipped {} ({}): {}", file.string(), to_string(via), candidate.reason));
          return Verdict::skip;
        }
        result_.path = file;
        stopped_ = true;
        note(fmt::format("ld.so stops at {} ({}): {}", file.string(), to_string(via),
                         candidate.reason));
        break;
    }
    return candidate.verdict;
  }

  // True when the search is over (found, or stopped).
  bool done(Verdict verdict) const { return verdict == Verdict::accept || stopped_; }

  bool preloaded() {
    const auto& dirs = config_.preloaded;
    for (const auto& dir : dirs) {
      if (done(offer(dir.dir / result_.name, FoundVia::preloaded))) {
        label_ = dir.label;
        return true;
      }
    }
    if (dirs.empty()) return false;
    for (const auto& [file, index] : sonames_.lookup(result_.name)) {
      if (file.filename() == result_.name) continue;  // tried above
      if (done(offer(file, FoundVia::preloaded))) {
        label_ = dirs[index].label;
        note(fmt::format("matched by SONAME ({})", file.filename().string()));
        return true;
      }
    }
    return false;
  }

  bool dirs(const std::vector<std::string>& entries, FoundVia via, const fs::path& origin) {
    for (const auto& entry : entries) {
      auto dir = expand_search_tokens(entry, origin, config_);
      if (!dir) continue;  // ld.so drops an entry it cannot expand
      // An empty entry of LD_LIBRARY_PATH is the working directory.
      const fs::path base = dir->empty() ? fs::path(".") : fs::path(*dir);
      if (done(offer(base / result_.name, via))) return true;
    }
    return false;
  }

  bool cache() {
    // ld.so takes the first entry of its own ABI for the name, trying one
    // file only; a CPU-specific variant only on a CPU that qualifies, which
    // is not modelled, so a plain entry is preferred.
    const bool known_abi = ld_cache_default_flags(loader_.elf_class, loader_.machine).has_value();
    const LdCacheEntry* plain = nullptr;
    const LdCacheEntry* variant = nullptr;
    for (const auto& entry : config_.ld_cache) {
      if (entry.soname != result_.name) continue;
      // For a machine whose cache flags are not known, the header check of
      // the file stands in for the flags.
      if (known_abi && !ld_cache_flags_match(entry.flags, loader_.elf_class, loader_.machine)) {
        continue;
      }
      auto& slot = entry.hwcap == 0 ? plain : variant;
      if (slot == nullptr) slot = &entry;
    }
    const LdCacheEntry* chosen = plain != nullptr ? plain : variant;
    if (chosen == nullptr) return false;
    if (chosen == variant) {
      note(
          fmt::format("only a CPU-specific cache entry (hwcap {:#x}); ld.so uses it only on a "
                      "CPU that qualifies",
                      chosen->hwcap));
    }
    return done(offer(chosen->path, FoundVia::ld_cache));
  }

  void note(std::string text) { notes_.push_back(std::move(text)); }

  NeededLibrary finish() {
    std::vector<std::string> parts;
    if (result_.via == FoundVia::preloaded) parts.push_back(label_);
    parts.insert(parts.end(), notes_.begin(), notes_.end());
    result_.detail = util::join(parts, "; ");
    return std::move(result_);
  }

  const ElfFile& loader_;
  const fs::path& origin_dir_;
  const LibrarySearch& config_;
  PreloadedSonames& sonames_;
  NeededLibrary result_;
  std::vector<std::string> notes_;
  std::string label_;
  bool stopped_ = false;
};

// ld.so's test for a token at `text` (just after the '$'): the length it
// takes, braces included, or 0.
std::size_t token_length(std::string_view text, std::string_view token) {
  if (!text.empty() && text.front() == '{') {
    return text.size() > token.size() + 1 && text.substr(1, token.size()) == token &&
                   text[token.size() + 1] == '}'
               ? token.size() + 2
               : 0;
  }
  if (text.substr(0, token.size()) != token) return 0;
  if (text.size() > token.size()) {
    const auto next = static_cast<unsigned char>(text[token.size()]);
    if (std::isalnum(next) != 0 || next == '_') return 0;
  }
  return token.size();
}

}  // namespace

std::string_view to_string(FoundVia via) {
  switch (via) {
    case FoundVia::path_in_name:
      return "path-in-name";
    case FoundVia::preloaded:
      return "preloaded";
    case FoundVia::rpath:
      return "rpath";
    case FoundVia::ld_library_path:
      return "ld-library-path";
    case FoundVia::runpath:
      return "runpath";
    case FoundVia::ld_cache:
      return "ld-cache";
    case FoundVia::default_dir:
      return "default-dir";
    case FoundVia::bundled:
      return "bundled";
    case FoundVia::not_found:
      break;
  }
  return "not-found";
}

std::optional<std::string> expand_search_tokens(std::string_view entry, const fs::path& origin_dir,
                                                const LibrarySearch& search) {
  const std::string origin = origin_dir.string();
  const std::pair<std::string_view, const std::string*> tokens[] = {
      {"ORIGIN", &origin}, {"LIB", &search.lib_token}, {"PLATFORM", &search.platform_token}};
  std::string out;
  for (std::size_t i = 0; i < entry.size(); ++i) {
    if (entry[i] != '$') {
      out.push_back(entry[i]);
      continue;
    }
    bool matched = false;
    for (const auto& [token, value] : tokens) {
      const std::size_t length = token_length(entry.substr(i + 1), token);
      if (length == 0) continue;
      if (value->empty()) return std::nullopt;
      out += *value;
      i += length;
      matched = true;
      break;
    }
    if (!matched) out.push_back('$');
  }
  return out;
}

NeededLibrary find_library(std::string_view name, const ElfFile& loader, const fs::path& origin_dir,
                           const LibrarySearch& search) {
  PreloadedSonames sonames(search.preloaded);
  return Search(name, loader, origin_dir, search, sonames).run();
}

std::vector<NeededLibrary> resolve_needed(const ElfFile& elf, const fs::path& origin_dir,
                                          const LibrarySearch& search) {
  // One SONAME index for all names: it is the expensive part.
  PreloadedSonames sonames(search.preloaded);
  std::vector<NeededLibrary> out;
  out.reserve(elf.needed.size());
  for (const auto& name : elf.needed) {
    out.push_back(Search(name, elf, origin_dir, search, sonames).run());
  }
  return out;
}

}  // namespace flashfit::binary
