// The search configuration of the machine flashfit runs on: the only part of
// library search that reads global state (the cache file, the environment).
#include <elf.h>

#include <string_view>

#include "binary/library_search.hpp"
#include "util/env_vars.hpp"

namespace flashfit::binary {

namespace fs = std::filesystem;

namespace {

struct MachineLayout {
  std::string_view multiarch;  // Debian's triplet directory name
  std::string_view platform;   // the kernel's AT_PLATFORM string
  bool is64 = true;
};

// Platform strings are left empty where the kernel reports a CPU model
// ("power9", "z15") that cannot be known from e_machine.
MachineLayout layout_for(std::uint16_t e_machine) {
  switch (e_machine) {
    case EM_X86_64:
      return {"x86_64-linux-gnu", "x86_64", true};
    case EM_AARCH64:
      return {"aarch64-linux-gnu", "aarch64", true};
    case EM_386:
      return {"i386-linux-gnu", "i686", false};
    case EM_ARM:
      return {"arm-linux-gnueabihf", "", false};
    case EM_PPC64:
      return {"powerpc64le-linux-gnu", "", true};
    case EM_S390:
      return {"s390x-linux-gnu", "", true};
    case EM_RISCV:
      return {"riscv64-linux-gnu", "", true};
    default:
      return {"", "", true};
  }
}

// ld.so splits LD_LIBRARY_PATH on both ':' and ';' and reads an empty
// element as the working directory; an empty variable is no path at all.
std::vector<std::string> split_library_path(std::string_view text) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : text) {
    if (c == ':' || c == ';') {
      parts.push_back(std::move(part));
      part.clear();
    } else {
      part.push_back(c);
    }
  }
  parts.push_back(std::move(part));
  return parts;
}

}  // namespace

LibrarySearch system_library_search(std::uint16_t e_machine,
                                    const std::vector<PreloadedDir>& preloaded) {
  const MachineLayout layout = layout_for(e_machine);
  LibrarySearch search;
  search.preloaded = preloaded;
  if (auto value = util::getenv_nonempty("LD_LIBRARY_PATH")) {
    search.ld_library_path = split_library_path(*value);
  }
  // No cache (a container without ldconfig run) is a normal state: the
  // loader then goes straight to its default directories.
  if (auto cache = read_ld_so_cache()) search.ld_cache = std::move(*cache);

  // Both layouts: the loader of a multiarch distribution (Debian, Ubuntu)
  // uses the triplet directories, one of Fedora or Arch the lib64 ones; a
  // directory the real loader does not search rarely holds a library of
  // this ABI that the others lack.
  const std::string_view lib = layout.is64 ? "lib64" : "lib32";
  if (!layout.multiarch.empty()) {
    search.default_dirs.push_back(fs::path("/lib") / layout.multiarch);
    search.default_dirs.push_back(fs::path("/usr/lib") / layout.multiarch);
  }
  search.default_dirs.push_back(fs::path("/") / lib);
  search.default_dirs.push_back(fs::path("/usr") / lib);
  search.default_dirs.emplace_back("/lib");
  search.default_dirs.emplace_back("/usr/lib");

  // $LIB is compiled into ld.so: the triplet directory on a multiarch
  // system (Debian's ld.so expands it to lib/x86_64-linux-gnu), else lib64
  // for 64-bit objects and lib for 32-bit ones.
  std::error_code error;
  if (!layout.multiarch.empty() &&
      fs::is_directory(fs::path("/usr/lib") / layout.multiarch, error)) {
    search.lib_token = "lib/" + std::string(layout.multiarch);
  } else {
    search.lib_token = layout.is64 ? "lib64" : "lib";
  }
  search.platform_token = std::string(layout.platform);
  return search;
}

}  // namespace flashfit::binary
