#pragma once
// Where glibc's dynamic loader would find each DT_NEEDED library of an
// object, computed from an explicit search configuration rather than from
// the running process, so that `inspect` can answer for an extension module
// that is not loaded (and tests can build any configuration they like).
//
// Modelled (glibc 2.36 elf/dl-load.c, checked against the real loader in the
// tests): a name with '/' is a path; objects already loaded match by file
// name or SONAME; then the object's DT_RPATH (only when it has no
// DT_RUNPATH), LD_LIBRARY_PATH, DT_RUNPATH, ld.so.cache, the default
// directories. $ORIGIN in LD_LIBRARY_PATH means the executable's directory,
// which is not known here: such an entry is dropped. A candidate of the wrong ELF class or machine
// is skipped and the search goes on; one that is not a loadable ELF object at all (garbage, too
// short, a directory, not ET_DYN) stops the loader with an error, and that is reported as not
// found, naming the file.
//
// Not modelled: the RPATH of the objects that loaded this one and of the
// executable, the glibc-hwcaps and legacy hwcap subdirectories of each
// search directory (the plain directory is tried), DF_1_NODEFLIB, secure
// (setuid) mode, and the loader's choice among CPU-specific ld.so.cache
// entries (a plain entry is preferred; a CPU-specific one is used when it is
// the only one, and the detail says so).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binary/elf.hpp"
#include "binary/ld_cache.hpp"

namespace flashfit::binary {

enum class FoundVia {
  path_in_name,     // the NEEDED entry is itself a path
  preloaded,        // already in the process (e.g. torch/lib after `import torch`)
  rpath,            // DT_RPATH of the object
  ld_library_path,  // $LD_LIBRARY_PATH
  runpath,          // DT_RUNPATH of the object
  ld_cache,         // /etc/ld.so.cache
  default_dir,      // the loader's built-in directories
  not_found,
  bundled,  // not on the search path yet, but shipped in the wheel being inspected
};

// "path-in-name", "preloaded", "rpath", "ld-library-path", "runpath",
// "ld-cache", "default-dir", "not-found", "bundled".
std::string_view to_string(FoundVia via);

// A directory whose libraries are already loaded when the object is, with
// the reason shown to the user ("loaded by import torch"). Every library in
// it counts as loaded: matched by file name, or by SONAME as ld.so matches
// loaded objects.
struct PreloadedDir {
  std::filesystem::path dir;
  std::string label;
};

struct LibrarySearch {
  std::vector<PreloadedDir> preloaded;  // libraries already in the process
  std::vector<std::string>
      ld_library_path;                 // $LD_LIBRARY_PATH entries; "" is the current directory
  std::vector<LdCacheEntry> ld_cache;  // all entries; those of the object's ABI are used
  std::vector<std::filesystem::path> default_dirs;  // in the loader's order
  // What $LIB and $PLATFORM expand to in RPATH, RUNPATH and LD_LIBRARY_PATH.
  // ld.so compiles the first in ("lib/x86_64-linux-gnu" on Debian, "lib64"
  // on Fedora) and takes the second from the kernel's AT_PLATFORM
  // ("x86_64", "aarch64", "i686"). Empty: unknown, and a path using the
  // token is dropped, as ld.so drops one it cannot expand.
  std::string lib_token;
  std::string platform_token;
};

struct NeededLibrary {
  std::string name;  // as written in DT_NEEDED
  FoundVia via = FoundVia::not_found;
  // The file the loader would open; for not_found, the file that stopped
  // the search when one did (an invalid ELF header, say), else nullopt.
  std::optional<std::filesystem::path> path;
  // The label of the preloaded directory, then what was skipped and why
  // ("skipped /opt/lib32/libz.so.1 (rpath): ELF class 32-bit, not 64-bit"),
  // or why the search stopped; "; "-separated, empty when there is nothing
  // to say.
  std::string detail;
};

// Expands $ORIGIN / ${ORIGIN} (to `origin_dir`), $LIB and $PLATFORM in one
// search-path entry, with ld.so's rule that "$ORIGINAL" is no token (a bare
// name ends at a character that cannot continue an identifier). Other "$"
// text stays as it is. nullopt when a token has no value (an empty
// origin_dir or token), which makes the loader drop the entry.
std::optional<std::string> expand_search_tokens(std::string_view entry,
                                                const std::filesystem::path& origin_dir,
                                                const LibrarySearch& search);

// Where the loader would find `name` when `loader` (whose RPATH, RUNPATH,
// ELF class and machine count) asks for it. `origin_dir` is the directory
// $ORIGIN stands for: the object's directory, or for a file inside a wheel
// the directory it will be installed to. Candidate files are read (their
// ELF header; the SONAMEs of preloaded directories only when no file name
// matches); a file that cannot be read is a skipped candidate, not an error.
NeededLibrary find_library(std::string_view name, const ElfFile& loader,
                           const std::filesystem::path& origin_dir, const LibrarySearch& search);

// find_library for every DT_NEEDED entry of `elf`, in order.
std::vector<NeededLibrary> resolve_needed(const ElfFile& elf,
                                          const std::filesystem::path& origin_dir,
                                          const LibrarySearch& search);

// This machine's search configuration for objects of `e_machine`: its
// /etc/ld.so.cache (missing or unreadable: no entries, not an error),
// $LD_LIBRARY_PATH (split on ':' and ';' as ld.so does), the default
// directories for the machine (multiarch and lib64 layouts both), and the
// $LIB / $PLATFORM values.
LibrarySearch system_library_search(std::uint16_t e_machine,
                                    const std::vector<PreloadedDir>& preloaded);

}  // namespace flashfit::binary
