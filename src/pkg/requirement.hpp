#pragma once
// PEP 508 dependency specifiers ("requirements"): `flash-attn==2.8.3`,
// `torch[cuda]>=2.6,<2.9; sys_platform == "linux"`, `name @ https://...`,
// parsed and printed as packaging 23.0's Requirement does.
//
// Deliberate differences from packaging 23.0 (asserted in
// tests/unit/pkg/requirement_test.cpp): outside quoted marker strings and URLs
// the input must be ASCII (packaging's Unicode-aware regexes accept, e.g.,
// "name===é" or a no-break space after "=="); URLs may not contain control
// characters or a non-ASCII host; input must be valid UTF-8. Marker
// differences are listed in marker.hpp.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pkg/marker.hpp"
#include "pkg/specifier.hpp"
#include "util/error.hpp"

namespace flashfit::pkg {

struct Requirement {
  std::string name;                 // as written (not normalised), like packaging
  std::vector<std::string> extras;  // as written, without duplicates, sorted
  SpecifierSet specifier;           // empty when none (always empty with a URL)
  std::optional<std::string> url;   // the text after '@', as written
  std::optional<Marker> marker;

  // str(packaging Requirement): "name[a,b]>=1,<2; python_version >= \"3.9\"",
  // "name@ https://host/x.whl ; os_name == \"posix\"" (sic: packaging puts no
  // space before '@').
  std::string str() const;
};

util::Result<Requirement> parse_requirement(std::string_view text);

}  // namespace flashfit::pkg
