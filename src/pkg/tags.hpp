#pragma once
// Supported-tag lists (PEP 425, PEP 600 manylinux, PEP 656 musllinux) computed
// the way pip computes them, from plain facts about an interpreter, and the
// rank pip gives a wheel against such a list.
//
// The reference is packaging 21.3 as vendored in pip 23.x (Debian 12's pip).
// Scope: Linux lists are exact; other systems that packaging treats
// generically (Windows, the BSDs) are exact too. macOS is out of scope: pip
// derives a long macosx_* list from platform.mac_ver() there, while this code
// yields only the normalised sysconfig platform (e.g. macosx_11_0_arm64).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/tag.hpp"

namespace flashfit::pkg {

// A libc version as packaging compares it: (major, minor), patch ignored.
struct LibcVersion {
  int major = 0;
  int minor = 0;
  friend bool operator==(const LibcVersion&, const LibcVersion&) = default;
  friend auto operator<=>(const LibcVersion&, const LibcVersion&) = default;
};

// Everything about an interpreter that decides its tag list, as plain values,
// so a probed interpreter and a what-if one go through the same code. Each
// field names the Python expression it mirrors; "config var" means
// sysconfig.get_config_var(name), where unset (None) and 0 differ.
struct InterpreterTagFacts {
  std::string implementation;  // sys.implementation.name: "cpython", "pypy", ...
  int python_major = 3;        // sys.version_info[0]
  int python_minor = 0;        // sys.version_info[1]
  // config var py_version_nodot, str()'d ("311", PyPy "39"); nullopt when unset.
  // An empty string counts as unset, as in packaging.
  std::optional<std::string> py_version_nodot;

  // The ABI flags (CPython only).
  std::optional<bool> py_debug;        // config var Py_DEBUG, truthiness; nullopt when unset
  bool has_gettotalrefcount = false;   // hasattr(sys, "gettotalrefcount")
  bool has_d_pyd_suffix = false;       // "_d.pyd" in importlib.machinery.EXTENSION_SUFFIXES
  std::optional<bool> with_pymalloc;   // config var WITH_PYMALLOC (consulted below 3.8)
  std::optional<int> py_unicode_size;  // config var Py_UNICODE_SIZE (consulted below 3.3)
  bool max_unicode_is_ucs4 = true;     // sys.maxunicode == 0x10FFFF (below 3.3, size unset)
  bool gil_disabled = false;           // config var Py_GIL_DISABLED truthy (consulted from 3.13)

  // Non-CPython: config var SOABI ("pypy39-pp73"); nullopt or "" when unset.
  std::optional<std::string> soabi;

  // The platform.
  std::string system;     // platform.system(): "Linux", "Windows", "Darwin", ...
  std::string platform;   // sysconfig.get_platform(): "linux-x86_64", "win-amd64"
  bool is_32bit = false;  // sys.maxsize <= 2**32 (a 32-bit interpreter, maybe on a 64-bit kernel)
  std::optional<LibcVersion> glibc;  // os.confstr("CS_GNU_LIBC_VERSION"); nullopt: not glibc
  std::optional<LibcVersion> musl;   // the musl loader's "Version x.y"; nullopt: not musl
  // ELF header of sys.executable: 32-bit little-endian EM_ARM with EABI5 and
  // the hard-float flag. Decides whether armv7l gets manylinux tags.
  bool executable_is_armhf = false;
  // ELF header of sys.executable: 32-bit little-endian EM_386. Decides whether
  // i686 gets manylinux tags.
  bool executable_is_i686 = false;
  // glibc versions that an importable `_manylinux` module declares
  // incompatible (PEP 600 manylinux_compatible(), or PEP 513/571/599
  // manylinux1/2010/2014_compatible for 2.5/2.12/2.17). A veto removes both
  // the manylinux_2_N tag and its legacy alias. Empty when there is no module.
  std::vector<LibcVersion> manylinux_vetoed;
};

// Which installer's list to reproduce. Both build on packaging 21.3 and
// differ only in the `<interpreter>-none-any` tag of compatible_tags().
enum class TagRules {
  // What pip 23.x ranks wheels against (pip's compatibility_tags.get_supported()):
  // packaging's lists, with `<short name><py_version_nodot>-none-any` (cp311,
  // pp39) right before `py311-none-any`. CPython 3.11 on glibc 2.36 x86_64: 914 tags.
  pip_packaging_21_3,
  // packaging 21.3's tags.sys_tags(): no `cp311-none-any`; PyPy gets
  // `pp3-none-any` instead of `pp39-none-any`. The same machine: 913 tags.
  packaging_21_3_sys_tags,
};

// A Linux platform tag read back (the inverse of what platform_tags writes):
// manylinux_2_28_x86_64 -> manylinux, glibc 2.28, x86_64; the legacy aliases
// manylinux1/2010/2014 as PEP 600 maps them (glibc 2.5, 2.12, 2.17);
// musllinux_1_2_aarch64 -> musllinux, musl 1.2; linux_x86_64 -> plain linux.
struct LinuxPlatform {
  enum class Kind { plain, manylinux, musllinux };
  Kind kind = Kind::plain;
  std::optional<LibcVersion> libc;  // manylinux: glibc; musllinux: musl; plain: none
  std::string arch;                 // "x86_64", "aarch64", ...
};
// nullopt: not a Linux platform tag (any, win_amd64, macosx_...), or a garbled one.
std::optional<LinuxPlatform> parse_linux_platform(std::string_view platform);

// The supported tags, best first, with any duplicates the reference yields
// (only exotic implementation names produce them).
//
// Free-threaded CPython (>= 3.13 with Py_GIL_DISABLED) is handled under both
// rule sets as packaging >= 24.0 does: ABI `cp313t` (debug `cp313td`, then
// `cp313t`) and no abi3 tags, since free-threaded builds cannot load abi3 or
// GIL extensions. packaging 21.3 would list `cp313` and abi3 there, but no pip
// vendoring 21.3 runs on 3.13; the pips that do (>= 24.1) know the `t` flag.
std::vector<Tag> supported_tags(const InterpreterTagFacts& facts,
                                TagRules rules = TagRules::pip_packaging_21_3);

// An ordered tag list with O(1) lookup, answering "may this wheel be
// installed, and how much does pip prefer it".
class SupportedTags {
 public:
  explicit SupportedTags(std::vector<Tag> ordered);

  const std::vector<Tag>& tags() const { return tags_; }
  std::size_t size() const { return tags_.size(); }

  // Index of the tag's first occurrence; nullopt when not supported.
  std::optional<std::size_t> rank(const Tag& tag) const;

  // The lowest index any of the wheel's tags reaches (pip's
  // Wheel.support_index_min); nullopt when none is supported, i.e. pip would
  // not install the wheel.
  std::optional<std::size_t> best_rank(const std::vector<Tag>& wheel_tags) const;

 private:
  // Open addressing over indices into tags_ (0 = empty, else index + 1): one
  // allocation, no copies of the tag strings, and safe to copy or move.
  std::vector<Tag> tags_;
  std::vector<std::uint32_t> slots_;
};

}  // namespace flashfit::pkg
