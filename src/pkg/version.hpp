#pragma once
// PEP 440 versions, parsed, normalised and ordered exactly as the `packaging`
// library (>= 22) does; an invalid version is an error, never a "legacy" one.

#include <compare>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace flashfit::pkg {

class Version {
 public:
  // Accepts what packaging.version.Version accepts (surrounding whitespace,
  // a leading 'v', alternative spellings such as "1.0-alpha_1" or "1.0-r3"),
  // with numbers of any length. One deliberate difference: any non-ASCII byte
  // is an error, where Python's regex lets Unicode whitespace and a few
  // case-folded letters (U+212A KELVIN SIGN for 'k') through.
  static util::Result<Version> parse(std::string_view text);

  // The normalised form: str(packaging.version.Version(text)).
  std::string str() const;
  // Without the local label: Version.public.
  std::string public_str() const;
  // Epoch and release only: Version.base_version.
  std::string base_str() const;

  bool is_prerelease() const;  // has a pre or dev segment
  bool is_postrelease() const;
  bool is_devrelease() const;
  bool has_local() const;
  // The normalised local label ("cu12torch2.8cxx11abitrue"), empty if none.
  std::string local() const;

  // Release segments as decimal strings without leading zeros (they may be
  // longer than any machine integer: "1.99999999999999999999" is valid).
  const std::vector<std::string>& release() const { return parts().release; }
  const std::string& epoch() const { return parts().epoch; }
  // ("a" | "b" | "rc", number), as Version.pre.
  const std::optional<std::pair<std::string, std::string>>& pre() const { return parts().pre; }
  const std::optional<std::string>& post() const { return parts().post; }
  const std::optional<std::string>& dev() const { return parts().dev; }

  // packaging.utils.canonicalize_version: str() with trailing ".0" release
  // segments dropped when asked (what specifier identity and wildcard
  // matching compare).
  std::string canonical_str(bool strip_trailing_zero = true) const;

  // Whether Version(a.base_version) == Version(b.base_version): same epoch
  // and the same release once trailing zeros are ignored.
  bool same_base(const Version& other) const;

  // Orders as if neither version had a local label, without copying
  // (what Version(a.public) <=> Version(b.public) gives).
  std::strong_ordering compare_public(const Version& other) const;

  // The same version with the local label dropped.
  Version without_local() const;

  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) {
    return (a <=> b) == std::strong_ordering::equal;
  }

 private:
  // Local label parts: numeric parts as digit strings without leading zeros.
  struct LocalPart {
    bool numeric = false;
    std::string text;
  };

  struct Parts {
    std::string epoch = "0";
    std::vector<std::string> release;
    std::optional<std::pair<std::string, std::string>> pre;  // ("a"|"b"|"rc", number)
    std::optional<std::string> post;
    std::optional<std::string> dev;
    std::vector<LocalPart> local;
  };
  // Immutable once parsed and shared by copies: a catalog's thousands of
  // wheel names copy a few hundred versions, and a copy is then one counter.
  // Null only in a default-constructed or moved-from version (parts() gives 0).
  std::shared_ptr<const Parts> parts_;
  const Parts& parts() const;
  // The spelling almost every wheel's version has (1.2.3, 2.5.1.post1,
  // 2.8.3+cu12torch2.8cxx11abiTRUE: no whitespace, no leading zeros, only '.'
  // between parts) read in one pass into `out`; false for anything else,
  // which the full grammar then reads (the same answer either way).
  static bool parse_plain(std::string_view text, Parts& out);

  std::string format(bool with_local, bool strip_trailing_zero) const;
  friend class Specifier;  // wildcard matching formats the public part without copying
};

}  // namespace flashfit::pkg
